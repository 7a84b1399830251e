import { generateKeyPairSync } from 'node:crypto'
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose'
import { verifyJws, type Jwk } from '../../lib/infra/crypto/jws'

// Tokens are signed by `jose`, never by lib/: each algorithm the verifier names must verify a
// token that jose signed with it, and nothing else.
const ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const

interface Signer {
  alg: string
  privateKey: KeyLike
  jwk: JWK
}

async function signer(alg: string, published: Partial<Jwk> = { use: 'sig' }): Promise<Signer> {
  const { publicKey, privateKey } = await generateKeyPair(alg)
  return { alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid: `${alg}-key`, alg, ...published } }
}

function sign(key: Signer, header: Record<string, unknown> = { kid: key.jwk.kid }, payload = { sub: 'alice' }) {
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, ...header }).sign(key.privateKey)
}

/** The same token with its signature carrying base64 `=` padding: the same bytes, not base64url. */
function padded(token: string): string {
  return `${token}==`
}

const signers = new Map<string, Signer>()
beforeAll(async () => {
  for (const alg of ALGS) signers.set(alg, await signer(alg))
})
const by = (alg: string) => signers.get(alg)!

describe('verifyJws', () => {
  it.each(ALGS)(
    'verifies a token signed with %s by its published key, and not by another key of that type',
    async (alg) => {
      const token = await sign(by(alg))
      expect(verifyJws(token, [by(alg).jwk as Jwk])).toEqual({
        header: { alg, kid: `${alg}-key` },
        payload: { sub: 'alice' },
      })
      const other = await signer(alg)
      expect(verifyJws(token, [{ ...other.jwk, kid: `${alg}-key` }])).toBeNull()
    },
  )

  it('refuses a token whose parts are not base64url (padding), though the bytes are the same', async () => {
    const token = await sign(by('RS256'))
    const [header, payload, signature] = token.split('.') as [string, string, string]
    expect(verifyJws(token, [by('RS256').jwk as Jwk])).not.toBeNull()
    expect(verifyJws(padded(token), [by('RS256').jwk as Jwk])).toBeNull()
    expect(verifyJws(`${header}.${payload}=.${signature}`, [by('RS256').jwk as Jwk])).toBeNull()
  })

  it('refuses a token over 16384 characters, and verifies one of exactly 16384', async () => {
    const key = by('ES256')
    let exact: string | undefined
    for (let size = 12_000; size < 12_400 && !exact; size++) {
      const token = await sign(key, {}, { sub: 'alice', pad: 'p'.repeat(size) } as { sub: string })
      if (token.length === 16384) exact = token
      if (token.length > 16384) break
    }
    expect(exact).toBeDefined()
    expect(verifyJws(exact, [key.jwk as Jwk])).not.toBeNull()
    const over = await sign(key, {}, { sub: 'alice', pad: 'p'.repeat(12_300) } as { sub: string })
    expect(over.length).toBeGreaterThan(16384)
    expect(verifyJws(over, [key.jwk as Jwk])).toBeNull()
  })

  it('uses only keys published for signatures: use "sig" or no use, never "enc"', async () => {
    const token = await sign(by('ES256'))
    const { use: _use, ...withoutUse } = by('ES256').jwk
    expect(verifyJws(token, [{ ...by('ES256').jwk, use: 'sig' }])).not.toBeNull()
    expect(verifyJws(token, [withoutUse as Jwk])).not.toBeNull()
    expect(verifyJws(token, [{ ...by('ES256').jwk, use: 'enc' }])).toBeNull()
  })

  it('checks a token that names a kid with that key only, and one without a kid with every key', async () => {
    const signing = by('ES256')
    const other = await signer('ES256')
    const keys = [
      { ...other.jwk, kid: 'first' },
      { ...signing.jwk, kid: 'second' },
    ] as Jwk[]
    expect(verifyJws(await sign(signing, { kid: 'second' }), keys)).not.toBeNull()
    expect(verifyJws(await sign(signing, {}), keys)).not.toBeNull()
    // Signed by the key published as "second", but naming "first".
    expect(verifyJws(await sign(signing, { kid: 'first' }), keys)).toBeNull()
  })

  it('refuses an EdDSA token against a key set whose only OKP key cannot verify (X25519), without throwing', async () => {
    const x25519 = generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' })
    const token = await sign(by('EdDSA'), {})
    expect(verifyJws(token, [x25519 as Jwk])).toBeNull()
  })

  it('never throws for key set entries that are null or not objects', async () => {
    const token = await sign(by('ES256'))
    const keys = [null, 'a string', 42, by('ES256').jwk] as unknown as Jwk[]
    expect(verifyJws(token, keys)).not.toBeNull()
    expect(verifyJws(token, [null] as unknown as Jwk[])).toBeNull()
  })
})
