import { CompactEncrypt, decodeProtectedHeader, jwtDecrypt } from 'jose'
import type { SessionRecord } from '../../lib/infra/config/types'
import type { KeyRing } from '../../lib/infra/crypto/keys'
import { cookieStore } from '../../lib/core/session/cookie-store'
import { ADA, DAY, KEYS, SIGNED_IN_AT, VALID_AT, VECTORS, keyFromHex, ringOf } from '../support/sessions'

// The inputs are independent of lib/: the keys are the committed HKDF outputs, the tokens are the
// committed vectors, and what the store writes is opened with jose.
const KEY = keyFromHex(KEYS.session)
const OTHER_KEY = keyFromHex(KEYS.otherSecretSession)

const LIFETIME = 30 * DAY
const reader =
  (keys: KeyRing, maxLifetime = LIFETIME) =>
  (token: string, now: number) =>
    cookieStore(keys)
      .read(token, now, maxLifetime)
      .then((opened) => opened?.record ?? null)
const read = reader(ringOf(KEY))

/** A record to write: signed in and issued at VALID_AT, for an hour. */
const grace: SessionRecord = {
  userId: 'github:2',
  user: { name: 'Grace', email: 'grace@example.com' },
  createdAt: VALID_AT,
  issuedAt: VALID_AT,
  expiresAt: VALID_AT + 3600,
}

async function claimsOf(token: string, key = KEY) {
  const { payload } = await jwtDecrypt(token, key, { currentDate: new Date(VALID_AT * 1000) })
  return payload
}

describe('the cookie store', () => {
  describe('read', () => {
    it('reads a known token into a record, its sign-in time from auth_time', async () => {
      expect(await read(VECTORS.ada, VALID_AT)).toEqual({
        userId: 'github:1',
        user: ADA,
        createdAt: SIGNED_IN_AT,
        issuedAt: SIGNED_IN_AT,
        expiresAt: SIGNED_IN_AT + 30 * DAY,
      })
      expect(await read(VECTORS.ada, VALID_AT)).not.toHaveProperty('data')
      expect(await read(VECTORS.adaWithToken, VALID_AT)).toMatchObject({ data: { accessToken: 'secret-token' } })
    })

    it('answers null from the second of exp on', async () => {
      expect(await read(VECTORS.oneHour, SIGNED_IN_AT + 3599)).toMatchObject({ userId: 'github:1' })
      expect(await read(VECTORS.oneHour, SIGNED_IN_AT + 3600)).toBeNull()
      expect(await read(VECTORS.expired, SIGNED_IN_AT + 29)).toMatchObject({ userId: 'github:1' })
      expect(await read(VECTORS.expired, VALID_AT)).toBeNull()
    })

    it('answers null from maxLifetime after sign-in, however far away exp is', async () => {
      expect(await reader(ringOf(KEY), 3600)(VECTORS.ada, SIGNED_IN_AT + 3599)).toMatchObject({ userId: 'github:1' })
      expect(await reader(ringOf(KEY), 3600)(VECTORS.ada, SIGNED_IN_AT + 3600)).toBeNull()
    })

    it('answers null for a token without auth_time (written before maxLifetime)', async () => {
      expect(await read(VECTORS.noAuthTime, VALID_AT)).toBeNull()
    })

    it('answers null for a token sealed with another secret, and opens it once that secret is in the ring (rotation)', async () => {
      expect(await read(VECTORS.otherSecret, VALID_AT)).toBeNull()
      expect(await reader(ringOf(KEY, OTHER_KEY))(VECTORS.otherSecret, VALID_AT)).toMatchObject({
        userId: 'github:1',
        user: ADA,
      })
      expect(await reader(ringOf(OTHER_KEY, KEY))(VECTORS.ada, VALID_AT)).toMatchObject({
        userId: 'github:1',
        user: ADA,
      })
    })

    it.each([
      ['an empty sub', { sub: '' }],
      ['a string exp', { exp: String(SIGNED_IN_AT + DAY) }],
      ['a string iat', { iat: String(SIGNED_IN_AT) }],
      ['no sub', { sub: undefined }],
    ])('answers null for a token (sealed by jose) with %s', async (_case, changed) => {
      const claims = { sub: 'github:1', user: ADA, iat: SIGNED_IN_AT, exp: SIGNED_IN_AT + DAY, auth_time: SIGNED_IN_AT }
      const sealed = (payload: object) =>
        new CompactEncrypt(Buffer.from(JSON.stringify(payload)))
          .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
          .encrypt(KEY)
      expect(await read(await sealed({ ...claims, ...changed }), VALID_AT)).toBeNull()
      expect(await read(await sealed(claims), VALID_AT)).toMatchObject({ userId: 'github:1' })
    })

    it('answers null for a user of the wrong shape', async () => {
      expect(await read(VECTORS.wrongUser, VALID_AT)).toBeNull()
    })

    it('answers null, never throws, for a token that does not open', async () => {
      const [header, , iv, ciphertext, tag] = VECTORS.ada.split('.') as [string, string, string, string, string]
      const flip = (part: string) => (part[0] === 'A' ? 'B' : 'A') + part.slice(1)
      for (const token of [
        '',
        'garbage',
        '....',
        VECTORS.ada.slice(0, -1),
        `${VECTORS.ada}.`,
        [header, '', iv, flip(ciphertext), tag].join('.'),
        [header, '', iv, ciphertext, flip(tag)].join('.'),
      ]) {
        await expect(read(token, VALID_AT)).resolves.toBeNull()
      }
    })
  })

  describe('write', () => {
    it('seals the record as a dir + A256GCM JWT under the first key, which jose opens', async () => {
      const token = await cookieStore(ringOf(KEY)).write(grace, null)
      expect(decodeProtectedHeader(token)).toEqual({ alg: 'dir', enc: 'A256GCM' })
      const claims = await claimsOf(token)
      expect(claims).toEqual({
        sub: 'github:2',
        user: grace.user,
        auth_time: VALID_AT,
        iat: VALID_AT,
        exp: VALID_AT + 3600,
      })
      expect(await claimsOf(await cookieStore(ringOf(KEY, OTHER_KEY)).write(grace, null))).toMatchObject({
        sub: 'github:2',
      })
      await expect(claimsOf(await cookieStore(ringOf(OTHER_KEY, KEY)).write(grace, null))).rejects.toThrow()
      expect(await claimsOf(await cookieStore(ringOf(OTHER_KEY, KEY)).write(grace, null), OTHER_KEY)).toMatchObject({
        sub: 'github:2',
      })
    })

    it('writes the data when there is some, and reads back what it wrote', async () => {
      const store = cookieStore(ringOf(KEY))
      const token = await store.write({ ...grace, data: { accessToken: 'at' } }, null)
      expect(await claimsOf(token)).toMatchObject({ data: { accessToken: 'at' } })
      expect(await read(token, VALID_AT)).toEqual({ ...grace, data: { accessToken: 'at' } })
    })

    it('seals afresh every time (a new IV)', async () => {
      const store = cookieStore(ringOf(KEY))
      expect(await store.write(grace, null)).not.toBe(await store.write(grace, null))
    })
  })

  it('has nothing to remove: sign-out clears the cookie', async () => {
    await expect(cookieStore(ringOf(KEY)).remove(VECTORS.ada, null)).resolves.toBeUndefined()
  })
})
