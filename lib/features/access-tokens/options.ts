import type { ResolvedConfig } from '../../infra/config'
import { derivedSigningKey, ownSigningKey, type SigningKey } from '../../infra/crypto/signing-keys'
import { ConfigurationError } from '../../infra/errors'
import type { AccessTokenKey, AccessTokensOptions } from './types'

/** `accessTokens` resolved: null when the option is absent (then no route is added). */
export interface ResolvedAccessTokens {
  /** The audiences, the first being the default `resource`. */
  readonly audiences: readonly string[]
  readonly maxAge: number
  readonly claims: AccessTokensOptions['claims'] | null
  /** The first signs; every one is published at `/jwks`. */
  readonly keys: readonly SigningKey[]
  /** `iss`: the service's URL, base path included. */
  readonly issuer: string
}

const KEYS = new Set(['audiences', 'maxAge', 'claims', 'alg', 'keys'])
const FIX = "list your APIs: `accessTokens: { audiences: ['https://api.example.com'] }`"

/** Reads `accessTokens`; a mistake throws naming the option and the fix. */
export function resolveAccessTokens(config: ResolvedConfig): ResolvedAccessTokens | null {
  const given = config.featureOptions.accessTokens as AccessTokensOptions | undefined
  if (given === undefined) return null
  if (typeof given !== 'object' || given === null)
    throw new ConfigurationError(`\`accessTokens\` must be an object: ${FIX}`)
  for (const key of Object.keys(given))
    if (!KEYS.has(key))
      throw new ConfigurationError(
        `Unknown option \`accessTokens.${key}\`. Known options: audiences, maxAge, claims, alg, keys.`,
      )
  // The issuer names the service for good: it cannot come from a request's Host header.
  if (config.base === null)
    throw new ConfigurationError(
      '`accessTokens` needs `url` (or SERVICE_AUTH_URL): the tokens name the service by it (`iss`), which a Host header cannot decide',
    )
  const { maxAge = 300, claims, alg = 'EdDSA', keys } = given
  if (!Number.isInteger(maxAge) || maxAge < 10 || maxAge > 3600)
    throw new ConfigurationError(
      `\`accessTokens.maxAge\` must be a whole number of seconds from 10 to 3600; got ${String(maxAge)}`,
    )
  if (claims !== undefined && typeof claims !== 'function')
    throw new ConfigurationError('`accessTokens.claims` must be a function ({ record, resource }) => claims')
  if (alg !== 'EdDSA' && alg !== 'ES256')
    throw new ConfigurationError(`\`accessTokens.alg\` must be 'EdDSA' or 'ES256'; got ${JSON.stringify(alg)}`)
  return Object.freeze({
    audiences: Object.freeze(audiencesOf(given.audiences)),
    maxAge,
    claims: claims ?? null,
    keys: Object.freeze(
      keys === undefined ? config.secrets.map((secret) => derivedSigningKey(secret, alg)) : ownKeys(keys),
    ),
    issuer: config.base.href,
  })
}

function audiencesOf(audiences: unknown): string[] {
  if (!Array.isArray(audiences) || audiences.length === 0)
    throw new ConfigurationError(`\`accessTokens.audiences\` is required: ${FIX}`)
  return (audiences as unknown[]).map((audience, index) => {
    const url = typeof audience === 'string' ? URL.parse(audience) : null
    if (
      url === null ||
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.hash !== '' ||
      url.username !== ''
    )
      throw new ConfigurationError(
        `\`accessTokens.audiences[${index}]\` must be an absolute http(s) URL naming an API, such as 'https://api.example.com'; got ${JSON.stringify(audience)}`,
      )
    // As written: a resource is compared with it exactly, and the token's `aud` is it.
    return audience as string
  })
}

function ownKeys(keys: unknown): SigningKey[] {
  if (!Array.isArray(keys) || keys.length === 0)
    throw new ConfigurationError(
      '`accessTokens.keys` must list private keys (Ed25519 or P-256), the first signing; leave it out to derive them from `secret`',
    )
  const resolved = (keys as AccessTokenKey[]).map((entry, index) => {
    try {
      return isKidEntry(entry) ? ownSigningKey(entry.key, entry.kid) : ownSigningKey(entry)
    } catch (error) {
      throw new ConfigurationError(`\`accessTokens.keys[${index}]\`: ${(error as Error).message}`)
    }
  })
  const kids = new Set(resolved.map(({ kid }) => kid))
  if (kids.size !== resolved.length) throw new ConfigurationError('`accessTokens.keys`: two keys have the same `kid`')
  return resolved
}

function isKidEntry(entry: AccessTokenKey): entry is Extract<AccessTokenKey, { kid: string; key: unknown }> {
  return (
    typeof entry === 'object' && entry !== null && 'kid' in entry && 'key' in entry && typeof entry.kid === 'string'
  )
}
