import { memoryLimiter, memoryState } from '../../lib/infra/store/memory'
import { clockAt, setClock } from '../support/clock'

// The rate limits without Redis: a fixed window per key, and at most `bound` keys, so that a
// client naming a new address on every request (a forged X-Forwarded-For under `trust proxy:
// true`) cannot make the process keep one counter per address.
const START = 1_800_000_000
const forged = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`

describe('a rate limit in memory', () => {
  clockAt(START)

  it('allows `points` requests a key per window, then answers the whole seconds left of it', async () => {
    const limit = memoryLimiter(2, 60, 100)
    expect(await limit.consume('203.0.113.1')).toBeNull()
    setClock(START + 10)
    expect(await limit.consume('203.0.113.1')).toBeNull()
    expect(await limit.consume('203.0.113.1')).toBe(50)
    expect(await limit.consume('203.0.113.2')).toBeNull()
    setClock(START + 59)
    expect(await limit.consume('203.0.113.1')).toBe(1)
    // The window is fixed: refused requests do not move its end.
    setClock(START + 60)
    expect(await limit.consume('203.0.113.1')).toBeNull()
    expect(await limit.consume('203.0.113.1')).toBeNull()
    expect(await limit.consume('203.0.113.1')).toBe(60)
  })

  it('keeps at most `bound` keys however many addresses a client makes up', async () => {
    const limit = memoryLimiter(60, 3600, 1000)
    for (let i = 0; i < 20_000; i++) expect(await limit.consume(forged(i))).toBeNull()
    expect(limit.size).toBe(1000)
  })

  it('still holds one client to its limit while fewer than `bound` other keys come between its requests', async () => {
    const limit = memoryLimiter(3, 3600, 1000)
    let next = 0
    const flood = async (count: number) => {
      for (let i = 0; i < count; i++) await limit.consume(forged(next++))
    }
    for (let i = 0; i < 3; i++) {
      expect(await limit.consume('203.0.113.7')).toBeNull()
      await flood(999)
    }
    expect(await limit.consume('203.0.113.7')).toBe(3600)
    // Pushed out by `bound` others, its counter starts again: the documented price of the bound.
    await flood(1000)
    expect(await limit.consume('203.0.113.7')).toBeNull()
  })

  it('is what memoryState gives each named limit, each with keys of its own', async () => {
    const state = memoryState(7200, { limiterKeys: 2 })
    const [requests, links] = [state.limiter('requests', 1, 60), state.limiter('email-ip-hour', 1, 3600)]
    expect(await requests.consume('203.0.113.1')).toBeNull()
    // Another limit's keys do not push this one's out.
    for (let i = 0; i < 10; i++) await links.consume(forged(i))
    expect(await requests.consume('203.0.113.1')).toBe(60)
  })
})
