import * as jws from '../../lib/infra/crypto/jws'
import { checkToken, verifiedTokens } from '../../lib/resource/claims'
import { keySet, REFETCH_MS } from '../../lib/resource/key-set'
import { resolveResourceOptions } from '../../lib/resource/options'
import { AUDIENCE, startIssuer, testKey, type TokenIssuer } from '../support/token-issuer'

/**
 * One signature check per token, not per request: a token that verified is remembered against the
 * key set it verified with. Its claims are still judged on every request (it expires on time), they
 * are frozen (every request's `res.locals.accessToken` is the same object), a token that did not
 * verify is never remembered, and once the key set is fetched again without its key, it is refused.
 */
const ed = testKey('EdDSA')
let issuer: TokenIssuer

beforeEach(async () => {
  issuer = await startIssuer(ed)
})
afterEach(async () => {
  jest.restoreAllMocks()
  await issuer.close()
})

async function setUp() {
  let now = 1_000_000
  const keys = keySet(`${issuer.issuer}/jwks`, () => now)
  expect(await keys.refresh()).toBe(true)
  const options = resolveResourceOptions({ issuer: issuer.issuer, audience: AUDIENCE })
  const verified = verifiedTokens()
  const check = (token: string, seconds = Date.now() / 1000) => checkToken(token, keys, options, seconds, verified)
  return { keys, check, later: (ms: number) => (now += ms) }
}

it('checks a signature once however often the token comes, and judges its times every time', async () => {
  const { check } = await setUp()
  const verify = jest.spyOn(jws, 'verifyJws')
  const now = Math.floor(Date.now() / 1000)
  const token = issuer.token(ed, { iat: now, exp: now + 60 })
  for (let i = 0; i < 50; i++) expect(check(token).kind).toBe('ok')
  expect(verify).toHaveBeenCalledTimes(1)
  // The same token after its expiry (and the 60 s of leeway): refused, without checking it again.
  expect(check(token, now + 121)).toEqual({ kind: 'invalid', description: 'the access token expired' })
  expect(verify).toHaveBeenCalledTimes(1)
})

it('keeps the claims frozen, and never remembers a token that did not verify', async () => {
  const { check } = await setUp()
  const result = check(issuer.token(ed, { amr: ['pwd', 'otp'] }))
  if (result.kind !== 'ok') throw new Error(result.kind)
  expect(Object.isFrozen(result.claims)).toBe(true)
  expect(Object.isFrozen(result.claims.amr)).toBe(true)
  const forged = `${issuer.token(ed).split('.').slice(0, 2).join('.')}.${'A'.repeat(86)}`
  const verify = jest.spyOn(jws, 'verifyJws')
  for (let i = 0; i < 3; i++) expect(check(forged).kind).toBe('invalid')
  expect(verify).toHaveBeenCalledTimes(3)
})

it('refuses a remembered token once the key set is fetched again without its key', async () => {
  const { keys, check, later } = await setUp()
  const token = issuer.token(ed)
  expect(check(token).kind).toBe('ok')
  const next = testKey('EdDSA')
  issuer.publish(next)
  later(REFETCH_MS)
  expect(await keys.refresh()).toBe(true)
  expect(check(token).kind).toBe('unknown key')
  expect(check(issuer.token(next)).kind).toBe('ok')
})
