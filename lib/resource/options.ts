import { resolveRedis, type ResolvedRedis } from '../infra/config/stores'
import { ConfigurationError } from '../infra/errors'
import type { RedisClient } from '../infra/store/redis'
import { isRecord } from '../infra/util/object'
import { checkKeys, describe } from '../infra/util/options'
import { parseHttpUrl } from '../infra/urls/http-url'

/** What `requireAccessToken(options)` takes (docs/access-tokens.md, "For the APIs"). */
export interface RequireAccessTokenOptions {
  /** The auth service's `url`, base path included (`https://auth.example.com/api/auth`): the tokens' `iss`, exactly. */
  issuer: string
  /** This API's URL (the `resource` it asks tokens for), or several: a token's `aud` must name one. */
  audience: string | readonly string[]
  /** Where the service publishes its public keys. Default: `${issuer}/jwks`. */
  jwksUri?: string
  /** Step-up: seconds since the user last proved who they are (`auth_time`) at most. */
  maxAge?: number
  /** Step-up: `2`, the user signed in with two factors (`acr` is AAL2's, or `amr` has `mfa`). */
  aal?: 1 | 2
  /** Seconds of clock difference allowed on `exp`, `nbf` and `iat`: 0 to 60. Default 60. */
  clockTolerance?: number
  /** The ioredis client (or Cluster) of the Redis the auth service uses: ended sessions are then refused. */
  redis?: RedisClient
  /** The auth service's `redisKeyPrefix`. Default `'auth:'`, as there. */
  redisKeyPrefix?: string
  /** Milliseconds a Redis read may take (a read the cache cannot answer). Default 1000, as the service's `storeTimeout`. */
  redisTimeout?: number
}

export interface ResolvedResourceOptions {
  readonly issuer: string
  readonly audiences: ReadonlySet<string>
  readonly jwksUri: string
  readonly maxAge: number | null
  readonly aal: 1 | 2 | null
  readonly clockTolerance: number
  readonly redis: ResolvedRedis
  readonly redisTimeout: number
}

const KEYS = [
  'issuer',
  'audience',
  'jwksUri',
  'maxAge',
  'aal',
  'clockTolerance',
  'redis',
  'redisKeyPrefix',
  'redisTimeout',
] as const
const MAX_CLOCK_TOLERANCE = 60
const EXAMPLE =
  "requireAccessToken({ issuer: 'https://auth.example.com/api/auth', audience: 'https://api.example.com' })"

/** Checked once, when the middleware is made: a mistake throws, naming the option and the fix. */
export function resolveResourceOptions(options: unknown): ResolvedResourceOptions {
  if (!isRecord(options))
    throw new ConfigurationError(
      `requireAccessToken(options) takes an object such as ${EXAMPLE}; got ${describe(options)}. Pass it the call, not the function.`,
    )
  checkKeys(options, KEYS, 'requireAccessToken.')
  const issuer = urlOption(
    options.issuer,
    'issuer',
    "the auth service's `url`, such as 'https://auth.example.com/api/auth'",
  )
  if (issuer.endsWith('/'))
    throw new ConfigurationError(
      `\`requireAccessToken.issuer\` must be the auth service's \`url\` as its tokens name it (\`iss\`), which never ends with '/'; got ${describe(issuer)}`,
    )
  const jwksUri =
    options.jwksUri === undefined
      ? `${issuer}/jwks`
      : urlOption(options.jwksUri, 'jwksUri', "such as 'https://auth.example.com/api/auth/jwks'")
  return Object.freeze({
    issuer,
    audiences: audiencesOf(options.audience),
    jwksUri,
    maxAge: wholeNumber(options.maxAge, 'maxAge', 'a whole number of seconds above 0', 1, Number.MAX_SAFE_INTEGER),
    aal: aalOf(options.aal),
    clockTolerance:
      wholeNumber(
        options.clockTolerance,
        'clockTolerance',
        `a whole number of seconds from 0 to ${MAX_CLOCK_TOLERANCE}`,
        0,
        MAX_CLOCK_TOLERANCE,
      ) ?? MAX_CLOCK_TOLERANCE,
    redis: resolveRedis(options),
    redisTimeout:
      wholeNumber(options.redisTimeout, 'redisTimeout', 'a whole number of milliseconds from 1 to 60000', 1, 60_000) ??
      1000,
  })
}

function urlOption(value: unknown, option: string, example: string): string {
  if (typeof value !== 'string' || parseHttpUrl(value) === null)
    throw new ConfigurationError(
      `\`requireAccessToken.${option}\` must be an absolute http(s) URL, ${example}; got ${describe(value)}`,
    )
  return value
}

function audiencesOf(value: unknown): ReadonlySet<string> {
  const list: unknown[] = Array.isArray(value) ? value : [value]
  if (list.length === 0 || !list.every((item) => typeof item === 'string' && item !== ''))
    throw new ConfigurationError(
      `\`requireAccessToken.audience\` must be this API's URL, the \`resource\` it asks tokens for (such as 'https://api.example.com'), or a list of them; got ${describe(value)}`,
    )
  return new Set(list as string[])
}

function wholeNumber(value: unknown, option: string, what: string, min: number, max: number): number | null {
  if (value === undefined) return null
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new ConfigurationError(`\`requireAccessToken.${option}\` must be ${what}; got ${describe(value)}`)
  return value
}

function aalOf(value: unknown): 1 | 2 | null {
  if (value === undefined) return null
  if (value !== 1 && value !== 2)
    throw new ConfigurationError(`\`requireAccessToken.aal\` must be 1 or 2 (two factors); got ${describe(value)}`)
  return value
}
