import type { ProviderUser } from '../../infra/config/providers'
import type { OAuthTokens } from './types'

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)
const firstValue = (list: unknown) =>
  Array.isArray(list) ? text((list[0] as { value?: unknown } | undefined)?.value) : undefined

/**
 * The default mapping, for the common shapes: a Passport profile (`id`, `displayName`, `emails`,
 * `photos`), OpenID Connect claims (`sub`, `name`, `email`, `picture`) and GitHub-like userinfo
 * (`id`, `login`, `avatar_url`).
 */
export function defaultProfile(profile: Record<string, unknown>): ProviderUser {
  const id = text(profile.sub) ?? text(profile.id) ?? (typeof profile.id === 'number' ? String(profile.id) : '')
  return {
    id,
    name:
      text(profile.name) ??
      text(profile.displayName) ??
      text(profile.preferred_username) ??
      text(profile.username) ??
      text(profile.login) ??
      null,
    email: text(profile.email) ?? firstValue(profile.emails) ?? null,
    image: text(profile.picture) ?? text(profile.avatar_url) ?? firstValue(profile.photos) ?? null,
  }
}

/** The token endpoint's answer as OAuthTokens, with `expires_at` in seconds since the epoch. */
export function toTokens(accessToken: string, refreshToken: string | undefined, params: unknown): OAuthTokens {
  const raw = (params !== null && typeof params === 'object' ? params : {}) as Record<string, unknown>
  const tokens: OAuthTokens = { access_token: accessToken }
  if (refreshToken) tokens.refresh_token = refreshToken
  // An empty field is an absent one (GitHub Apps refresh with `scope=&token_type=bearer`).
  for (const field of ['id_token', 'token_type', 'scope'] as const) {
    const value = text(raw[field])
    if (value !== undefined) tokens[field] = value
  }
  const expiresIn = Number(raw.expires_in)
  if (Number.isFinite(expiresIn) && expiresIn > 0) tokens.expires_at = Math.floor(Date.now() / 1000) + expiresIn
  return tokens
}
