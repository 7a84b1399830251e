import { randomBuffer, randomToken } from '../../lib/infra/crypto/random'

// lib/infra/crypto/random.ts serves small draws from a pool of 512 bytes, refilled when spent: what it
// hands out must still be fresh every time, of the length asked, across refills, and a buffer must
// be the caller's own.
it('hands out tokens that never repeat, of the length asked, across many refills of its pool', () => {
  const seen = new Set<string>()
  for (let i = 0; i < 2000; i++) {
    for (const bytes of [32, 16, 24]) {
      const token = randomToken(bytes)
      expect(Buffer.from(token, 'base64url')).toHaveLength(bytes)
      expect(token).toMatch(/^[\w-]+$/)
      seen.add(token)
    }
  }
  expect(seen.size).toBe(6000)
})

it('gives each caller a buffer of its own (changing one changes no other), and draws large ones directly', () => {
  const first = randomBuffer(12)
  const copy = Buffer.from(first)
  const second = randomBuffer(12)
  second.fill(0)
  expect(first).toEqual(copy)
  expect(randomBuffer(12).equals(Buffer.alloc(12))).toBe(false)
  const large = randomBuffer(8192)
  expect(large).toHaveLength(8192)
  expect(large.equals(Buffer.alloc(8192))).toBe(false)
  expect(Buffer.from(randomToken(100), 'base64url')).toHaveLength(100)
})

it('gives a buffer memory of its own, not a slice of the slab Node shares between small buffers', () => {
  expect(randomBuffer(12).buffer.byteLength).toBe(12)
})

it('refuses a size that is not a whole, positive number of bytes, and then draws as before', () => {
  for (const bytes of [-32, 0, 1.5, Number.NaN]) expect(() => randomToken(bytes)).toThrow(RangeError)
  const seen = new Set(Array.from({ length: 100 }, () => randomToken(32)))
  expect(seen.size).toBe(100)
  expect(seen.has(Buffer.alloc(32).toString('base64url'))).toBe(false)
})
