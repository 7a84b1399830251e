import type { KeyRing } from '../../infra/crypto/keys'
import type { OAuthRegistry } from '../oauth/registry'
import type { LogoutIndex } from './logout-index'

/** What OpenID Connect logout keeps and reaches, built once by ./index.ts. */
export interface LogoutRuntime {
  /** Who each provider session signed in, the ID tokens kept for id_token_hint, and the logout tokens already used. */
  readonly index: LogoutIndex
  /** Seals the logout cookie (the provider and the ID token, or its handle in Redis, for id_token_hint). */
  readonly keys: KeyRing
  /** The oidc() providers' runtimes (discovery, keys, end-session endpoint). */
  readonly registry: OAuthRegistry
}
