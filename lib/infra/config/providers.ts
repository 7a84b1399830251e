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
