import { ConfigurationError } from '../errors'
import { isRecord } from '../util/object'
import { describe } from '../util/options'

/** What every configured provider has; each kind of provider adds its own parts. */
export interface ProviderInfo {
  readonly id: string
  readonly name: string
  /** NextAuth's provider types, as `GET /providers` says them. */
  readonly type: 'oauth' | 'email' | 'webauthn' | 'credentials'
  /** Which factory made it: each kind's feature builds the providers of its protocols. */
  readonly protocol: string
}

/** The user as a provider's profile mapper gives it. `id` is the account id at the provider. */
export interface ProviderUser {
  id: string
  name?: string | null
  email?: string | null
  image?: string | null
}

/**
 * The kinds of provider, by name: each feature adds its own by declaration merging (`declare module
 * '…/infra/config/providers'` in its types.ts), and `Provider` is their union.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ProviderKinds {}

/**
 * What the factories return and `auth({ providers })` takes. The union stays narrow from the
 * factories through resolveConfig to each feature (`type`, then `protocol`), so nothing downstream
 * casts. Its members' fields are the package's own: the public types are the factories' options.
 */
export type Provider = ProviderKinds[keyof ProviderKinds]

const PROVIDER_ID = /^[a-z0-9][\w-]{0,63}$/i

/** `providers`: each made by a factory of a feature's `protocols`, its id URL-safe and its own. */
export function resolveProviders(value: unknown, protocols: ReadonlySet<unknown>): readonly Provider[] {
  if (value === undefined) return Object.freeze([])
  if (!Array.isArray(value)) throw new ConfigurationError(`\`providers\` must be an array; got ${describe(value)}`)
  const seen = new Set<string>()
  return Object.freeze(
    value.map((provider: unknown, index) => {
      const option = `providers[${index}]`
      // Only the factories build what a provider needs to run; anything else would be listed by
      // GET /providers and then answer 404.
      if (!isProvider(provider, protocols)) {
        throw new ConfigurationError(
          `\`${option}\` must be made by passportStrategy(), oauth2(), oidc(), email(), passkey() or password() (import them from 'express-auth-service'); got ${describe(provider)}`,
        )
      }
      const { id, name, type } = provider
      if (typeof id !== 'string' || !PROVIDER_ID.test(id))
        throw new ConfigurationError(
          `\`${option}.id\` must be URL-safe (letters, digits, '-' and '_'); got ${describe(id)}`,
        )
      if (seen.has(id))
        throw new ConfigurationError(
          `\`${option}.id\` ${JSON.stringify(id)} is used twice; give each provider its own id`,
        )
      if (type !== 'oauth' && type !== 'email' && type !== 'webauthn' && type !== 'credentials')
        throw new ConfigurationError(
          `\`${option}.type\` must be 'oauth', 'email', 'webauthn' or 'credentials'; got ${describe(type)}`,
        )
      seen.add(id)
      return Object.freeze({ ...provider, name: typeof name === 'string' && name ? name : id })
    }),
  )
}

/** Made by a factory, which checked the rest: the provider union, kept from here on. */
function isProvider(value: unknown, protocols: ReadonlySet<unknown>): value is Provider {
  return isRecord(value) && protocols.has(value.protocol)
}
