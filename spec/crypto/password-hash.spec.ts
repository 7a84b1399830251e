import { hash as argonHash } from '@node-rs/argon2'
import { ARGON2ID, passwordHashing } from '../../lib/infra/crypto/password-hash'

/** bcrypt as an older system made its hashes (bcryptjs: `$2a$`). */
const bcryptHash = (password: string, cost: number): Promise<string> =>
  (require('bcryptjs') as { hash(password: string, cost: number): Promise<string> }).hash(password, cost)

const PASSWORD = 'violet-harbour-tractor-41'

describe('password hashes (argon2id at OWASP’s parameters, scrypt where argon2 cannot load)', () => {
  const hashing = passwordHashing()

  it('makes argon2id PHC strings at m=19456, t=2, p=1 with a fresh salt each time, and verifies them', async () => {
    expect(hashing.algorithm).toBe('argon2id')
    const a = await hashing.hash(PASSWORD)
    const b = await hashing.hash(PASSWORD)
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(a).not.toBe(b)
    expect(await hashing.verify(a, PASSWORD)).toEqual({ ok: true, rehash: false })
    expect(await hashing.verify(a, `${PASSWORD}!`)).toEqual({ ok: false, rehash: false })
  })

  it('asks to re-hash a hash of older parameters, and a bcrypt hash imported from another system', async () => {
    const older = await argonHash(PASSWORD, { memoryCost: 4096, timeCost: 3, parallelism: 1, algorithm: 2 })
    expect(await hashing.verify(older, PASSWORD)).toEqual({ ok: true, rehash: true })
    const imported = await bcryptHash(PASSWORD, 4)
    expect(imported).toMatch(/^\$2a\$04\$/)
    expect(await hashing.verify(imported, PASSWORD)).toEqual({ ok: true, rehash: true })
    expect(await hashing.verify(imported.replace('$2a$', '$2y$'), PASSWORD)).toEqual({ ok: true, rehash: true })
    expect(await hashing.verify(imported, 'another password')).toEqual({ ok: false, rehash: false })
  })

  it('round-trips scrypt (the fallback), which argon2 then asks to re-hash', async () => {
    const scrypt = passwordHashing({ prefer: 'scrypt' })
    expect(scrypt.algorithm).toBe('scrypt')
    const stored = await scrypt.hash(PASSWORD)
    expect(stored).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/)
    expect(await scrypt.verify(stored, PASSWORD)).toEqual({ ok: true, rehash: false })
    expect(await scrypt.verify(stored, 'nope')).toEqual({ ok: false, rehash: false })
    expect(await hashing.verify(stored, PASSWORD)).toEqual({ ok: true, rehash: true })
  })

  it('refuses hostile stored strings at once: huge parameters, garbage, nothing thrown', async () => {
    const huge = [
      `$argon2id$v=19$m=4194304,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$${'A'.repeat(43)}`,
      `$argon2id$v=19$m=19456,t=100000,p=1$c2FsdHNhbHRzYWx0c2FsdA$${'A'.repeat(43)}`,
      `$scrypt$ln=30,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$${'A'.repeat(43)}`,
      `$2b$31$${'a'.repeat(53)}`,
    ]
    for (const stored of huge) {
      const started = performance.now()
      expect(await hashing.verify(stored, PASSWORD)).toEqual({ ok: false, rehash: false })
      expect(performance.now() - started).toBeLessThan(500)
    }
    for (const garbage of ['', 'plain', '$argon2id$', '$scrypt$ln=x', `$scrypt$${'$'.repeat(600)}`, '$1$md5$crypt'])
      expect(await hashing.verify(garbage, PASSWORD)).toEqual({ ok: false, rehash: false })
  })

  it('a dummy verification costs about what a real one does', async () => {
    const stored = await hashing.hash(PASSWORD)
    const once = async (work: () => Promise<unknown>) => {
      const started = performance.now()
      await work()
      return performance.now() - started
    }
    await hashing.dummy(PASSWORD)
    // Interleaved, and medians compared: the machine's load falls on both alike.
    const real: number[] = []
    const dummy: number[] = []
    for (let i = 0; i < 9; i++) {
      real.push(await once(() => hashing.verify(stored, 'wrong')))
      dummy.push(await once(() => hashing.dummy('wrong')))
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[4]!
    expect(median(dummy) / median(real)).toBeGreaterThan(0.5)
    expect(median(dummy) / median(real)).toBeLessThan(2)
    expect(ARGON2ID).toEqual({ memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  })
})
