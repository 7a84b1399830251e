import { createCipheriv, randomBytes } from 'node:crypto'
import { EncryptJWT, jwtDecrypt } from 'jose'
import { open, seal } from '../../lib/crypto/jwe'
import { ADA, DAY, KEYS, SIGNED_IN_AT, VECTORS, keyFromHex, ringOf } from '../support/sessions'

// Keys are the committed HKDF outputs (see spec/crypto/keys.spec.ts), not derived by lib/.
const KEY = keyFromHex(KEYS.session)
const ring = ringOf(KEY)
const now = () => Math.floor(Date.now() / 1000)

describe('JWE (dir + A256GCM)', () => {
  it('opens what it seals', () => {
    const token = seal(ring.current, { sub: 'u1', n: 1 })
    expect(open(ring, token)).toEqual({ sub: 'u1', n: 1 })
  })

  it('opens a known-answer token sealed by jose, to exactly its claims', () => {
    expect(open(ring, VECTORS.ada)).toEqual({
      sub: 'github:1',
      user: ADA,
      iat: SIGNED_IN_AT,
      exp: SIGNED_IN_AT + 30 * DAY,
      auth_time: SIGNED_IN_AT,
    })
  })

  it('seals tokens the jose library decrypts and validates as a JWT', async () => {
    const token = seal(ring.current, { sub: 'u1', iat: now(), exp: now() + 60 })
    const { payload, protectedHeader } = await jwtDecrypt(token, KEY)
    expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM' })
    expect(payload.sub).toBe('u1')
  })

  it('opens tokens sealed by the jose library', async () => {
    const token = await new EncryptJWT({ user: { name: 'Ada' } })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setSubject('u2')
      .encrypt(KEY)
    expect(open(ring, token)).toMatchObject({ sub: 'u2', user: { name: 'Ada' } })
  })

  it('refuses a correctly encrypted token whose header asks for something it does not do (zip)', () => {
    const header = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM', zip: 'DEF' })).toString('base64url')
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', ring.current, iv)
    cipher.setAAD(Buffer.from(header))
    const body = Buffer.concat([cipher.update('{"sub":"u"}'), cipher.final()])
    const token = [
      header,
      '',
      iv.toString('base64url'),
      body.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.')
    expect(open(ring, token)).toBeNull()
    expect(
      open(
        ring,
        token.replace(header, Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM' })).toString('base64url')),
      ),
    ).toBeNull()
  })

  it('opens with any key of the ring and seals with the first (rotation)', () => {
    const oldKey = randomBytes(32)
    const newKey = randomBytes(32)
    const old = ringOf(oldKey)
    const rotated = ringOf(newKey, oldKey)
    const oldToken = seal(old.current, { sub: 'old' })
    expect(open(rotated, oldToken)).toEqual({ sub: 'old' })
    expect(open(old, seal(rotated.current, { sub: 'new' }))).toBeNull()
  })

  it('answers null, never throws, for anything that does not open', () => {
    const token = seal(ring.current, { sub: 'u1' })
    const parts = token.split('.')
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1)
    const bad: unknown[] = [
      undefined,
      null,
      42,
      {},
      '',
      'garbage',
      '....',
      token.slice(0, -1),
      token + 'x',
      `${token}.`,
      [parts[0], parts[1], parts[2], flip(parts[3]!), parts[4]].join('.'),
      [parts[0], parts[1], parts[2], parts[3], flip(parts[4]!)].join('.'),
      [parts[0], 'abc', parts[2], parts[3], parts[4]].join('.'),
      [parts[0], parts[1], '%%%', parts[3], parts[4]].join('.'),
      [Buffer.from('{"alg":"none"}').toString('base64url'), '', parts[2], parts[3], parts[4]].join('.'),
      'a'.repeat(70000),
    ]
    for (const value of bad) expect(open(ring, value)).toBeNull()
  })

  it('does not open a token sealed for another purpose or with another secret', () => {
    const csrfToken = seal(keyFromHex(KEYS.csrf), { sub: 'u1' })
    expect(open(ring, csrfToken)).toBeNull()
    expect(open(ring, VECTORS.otherSecret)).toBeNull()
    expect(open(ringOf(keyFromHex(KEYS.otherSecretSession)), VECTORS.otherSecret)).toMatchObject({ sub: 'github:1' })
  })
})
