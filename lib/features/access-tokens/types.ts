import type { PrivateKeyInput } from '../../infra/crypto/signing-keys'
import type { SessionRecordView } from '../../infra/config/types'

/**
 * `accessTokens` (docs/access-tokens.md): JWT access tokens (RFC 9068) for APIs on other origins,
 * issued at `POST {base}/token` to a signed-in browser, verified by anyone with `GET {base}/jwks`.
 */
export interface AccessTokensOptions {
  /** The APIs (absolute URLs) a token may be issued for: a request's `resource` must be one of them. The first is the default. */
  audiences: readonly string[]
  /** Seconds a token is valid: 10 to 3600. Default 300. */
  maxAge?: number
  /**
   * The app's own claims for a token, from the session it is issued to. The registered claims
   * (`iss`, `sub`, `aud`, `exp`, `iat`, `jti`, `sid`, …) are the service's and cannot be overridden:
   * the same names here are left out, and logged once. Throwing, or answering anything but a plain
   * object, issues no token (500).
   */
  claims?: (params: {
    record: SessionRecordView
    resource: string
  }) => Record<string, unknown> | Promise<Record<string, unknown>>
  /** The algorithm of the keys derived from `secret`: `EdDSA` (Ed25519, the default) or `ES256` (P-256). */
  alg?: 'EdDSA' | 'ES256'
  /**
   * Private keys of the app's own instead of keys derived from `secret` (Ed25519 or P-256; a KeyObject,
   * a PEM text or a private JWK, or `{ key, kid }`): the first signs, all are published.
   */
  keys?: readonly AccessTokenKey[]
}

export type AccessTokenKey = PrivateKeyInput | { key: PrivateKeyInput; kid: string }

declare module '../../infra/config/types' {
  interface AuthOptions {
    /** Access tokens for APIs on other origins (docs/access-tokens.md): `{ audiences: ['https://api.example.com'] }`. */
    accessTokens?: AccessTokensOptions
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    'access_token.issued': true
    'access_token.refused': true
    'access_token.claims': true
  }
}
