import { requireAccessToken, type RequireAccessTokenOptions } from '../../lib/resource'
import { configError } from '../support/config-error'
import { sharedRedis } from '../support/redis'

/**
 * `requireAccessToken(options)` checks its options when it is called, at the app's start: each
 * mistake throws a ConfigurationError that names the option, the value and the fix.
 */

const issuer = 'https://auth.example.com/api/auth'
const audience = 'https://api.example.com'
const make = (options: unknown) => () => requireAccessToken(options as RequireAccessTokenOptions)

it('takes the call, not the function, and an object', () => {
  expect(configError(make(undefined))).toMatch(
    /^requireAccessToken\(options\) takes an object such as .*; got undefined/,
  )
  expect(configError(make('https://auth.example.com'))).toMatch(/takes an object/)
})

it('needs issuer and audience', () => {
  expect(configError(make({ audience }))).toMatch(
    /^`requireAccessToken.issuer` must be an absolute http\(s\) URL, the auth service's `url`/,
  )
  expect(configError(make({ issuer: 'auth.example.com', audience }))).toMatch(/got "auth.example.com"/)
  expect(configError(make({ issuer: `${issuer}/`, audience }))).toMatch(/never ends with '\/'/)
  expect(configError(make({ issuer }))).toMatch(/^`requireAccessToken.audience` must be this API's URL/)
  expect(configError(make({ issuer, audience: [] }))).toMatch(/`requireAccessToken.audience`.*got an array/)
  expect(configError(make({ issuer, audience: [audience, ''] }))).toMatch(/`requireAccessToken.audience`/)
})

it('checks every other option', () => {
  expect(configError(make({ issuer, audience, maxAge: 0 }))).toBe(
    '`requireAccessToken.maxAge` must be a whole number of seconds above 0; got 0',
  )
  expect(configError(make({ issuer, audience, aal: 3 }))).toBe(
    '`requireAccessToken.aal` must be 1 or 2 (two factors); got 3',
  )
  expect(configError(make({ issuer, audience, clockTolerance: 61 }))).toBe(
    '`requireAccessToken.clockTolerance` must be a whole number of seconds from 0 to 60; got 61',
  )
  expect(configError(make({ issuer, audience, jwksUri: '/jwks' }))).toMatch(
    /^`requireAccessToken.jwksUri` must be an absolute/,
  )
  expect(configError(make({ issuer, audience, redis: {} }))).toMatch(/^`redis` must be an ioredis client/)
  expect(configError(make({ issuer, audience, redisKeyPrefix: 'x:' }))).toMatch(
    /`redisKeyPrefix` is set but `redis` is not/,
  )
  expect(configError(make({ issuer, audience, audiences: [audience] }))).toBe(
    'Unknown option `requireAccessToken.audiences`. Did you mean `requireAccessToken.audience`?',
  )
})

it('takes a right configuration', async () => {
  expect(typeof requireAccessToken({ issuer, audience, maxAge: 300, aal: 2, clockTolerance: 0 })).toBe('function')
  const redis = await sharedRedis()
  try {
    const client = redis.client({ lazyConnect: true })
    expect(
      typeof requireAccessToken({ issuer, audience: [audience], redis: client, redisKeyPrefix: 'app:auth:' }),
    ).toBe('function')
  } finally {
    await redis.close()
  }
})
