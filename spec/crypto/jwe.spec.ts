import { createCipheriv, randomBytes } from 'node:crypto'
import { EncryptJWT, jwtDecrypt } from 'jose'
import { open, seal } from '../../lib/infra/crypto/jwe'
import { ADA, DAY, KEYS, SIGNED_IN_AT, VECTORS, keyFromHex, ringOf } from '../support/sessions'

// Keys are the committed HKDF outputs (see spec/crypto/keys.spec.ts), not derived by lib/.
const KEY = keyFromHex(KEYS.session)
const ring = ringOf(KEY)
const now = () => Math.floor(Date.now() / 1000)
const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url')

/** A compact JWE under KEY with the protected header given, encrypted with node:crypto, not lib/. */
function sealWithHeader(header: Record<string, unknown>, payload: object, ivLength = 12): string {
  const protectedHeader = b64(JSON.stringify(header))
  const iv = randomBytes(ivLength)
  const cipher = createCipheriv('aes-256-gcm', KEY, iv)
  cipher.setAAD(Buffer.from(protectedHeader))
  const body = Buffer.concat([cipher.update(JSON.stringify(payload)), cipher.final()])
  return [protectedHeader, '', b64(iv), b64(body), b64(cipher.getAuthTag())].join('.')
}

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

  it.each([
    ['the members in another order', { enc: 'A256GCM', alg: 'dir' }],
    ['a key id', { alg: 'dir', enc: 'A256GCM', kid: 'session-2027' }],
    ['typ, cty and kid', { typ: 'JWT', cty: 'JWT', alg: 'dir', enc: 'A256GCM', kid: 'k' }],
  ])('opens a token from another JWE library whose header has %s', (_case, header) => {
    expect(open(ring, sealWithHeader(header, { sub: 'u1' }))).toEqual({ sub: 'u1' })
  })

  it.each([
    ['another key management algorithm', { alg: 'A256KW', enc: 'A256GCM' }],
    ['another content encryption', { alg: 'dir', enc: 'A128GCM' }],
    ['no alg', { enc: 'A256GCM' }],
    ['no enc', { alg: 'dir' }],
    ['a member it does not know', { alg: 'dir', enc: 'A256GCM', crit: ['exp'] }],
    ['a JSON array', ['dir', 'A256GCM']],
  ])('refuses a correctly encrypted token whose header has %s', (_case, header) => {
    expect(open(ring, sealWithHeader(header as Record<string, unknown>, { sub: 'u1' }))).toBeNull()
  })

  it('refuses a token whose parts carry base64 padding, though they decode to the same bytes', () => {
    const [header, , iv, ciphertext, tag] = VECTORS.ada.split('.') as [string, string, string, string, string]
    expect(open(ring, [header, '', iv, ciphertext, tag].join('.'))).not.toBeNull()
    expect(open(ring, [header, '', iv, ciphertext, `${tag}==`].join('.'))).toBeNull()
    expect(open(ring, [header, '', `${iv}=`, ciphertext, tag].join('.'))).toBeNull()
  })

  it('refuses a token whose authentication tag is cut short (GCM would check the shorter tag)', () => {
    const [header, , iv, ciphertext, tag] = VECTORS.ada.split('.') as [string, string, string, string, string]
    const short = b64(Buffer.from(tag, 'base64url').subarray(0, 12))
    expect(open(ring, [header, '', iv, ciphertext, short].join('.'))).toBeNull()
  })

  it('refuses a token with an IV other than 96 bits', () => {
    expect(open(ring, sealWithHeader({ alg: 'dir', enc: 'A256GCM' }, { sub: 'u1' }, 16))).toBeNull()
  })

  it('opens a token of 64 KiB, and refuses a longer one', () => {
    const sized = (length: number) => {
      for (let size = length - 200; size < length; size++) {
        const token = seal(ring.current, { sub: 'u1', pad: 'p'.repeat(Math.floor((size * 3) / 4)) })
        if (token.length === length) return token
      }
      throw new Error(`no token of ${length} characters`)
    }
    expect(open(ring, sized(64 * 1024))).toMatchObject({ sub: 'u1' })
    const longer = seal(ring.current, { sub: 'u1', pad: 'p'.repeat(49_200) })
    expect(longer.length).toBeGreaterThan(64 * 1024)
    expect(open(ring, longer)).toBeNull()
  })
})
