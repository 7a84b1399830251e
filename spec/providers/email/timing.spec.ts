import { sendTimes, until } from '../../../lib/features/email/timing'

/**
 * The time a refused recipient's answer is made to take: drawn afresh from the spread of the
 * recent accepted sends, never one of their recorded times (a caller who timed their own accepted
 * sends would recognise a refusal by the exact match), within the deadline.
 */
describe('sendTimes', () => {
  const draws = (times: ReturnType<typeof sendTimes>, n = 400) => Array.from({ length: n }, () => times.draw())

  it('before any accepted send: between 0.5 and 1.5 s, spread, or the deadline when that is shorter', () => {
    const drawn = draws(sendTimes(10_000))
    expect(Math.min(...drawn)).toBeGreaterThanOrEqual(500)
    expect(Math.max(...drawn)).toBeLessThanOrEqual(1500)
    expect(new Set(drawn).size).toBeGreaterThan(390)
    expect(Math.max(...drawn) - Math.min(...drawn)).toBeGreaterThan(500)
    expect(sendTimes(400).draw()).toBe(400)
  })

  it('draws within the spread of the accepted sends (5 % either way), never a recorded time', () => {
    const times = sendTimes(10_000)
    for (const ms of [310, 320, 330]) times.accepted(ms)
    const drawn = draws(times)
    expect(drawn.filter((ms) => [310, 320, 330].includes(ms))).toEqual([])
    expect(Math.min(...drawn)).toBeGreaterThanOrEqual(310 * 0.95)
    expect(Math.max(...drawn)).toBeLessThanOrEqual(330 * 1.05)
    expect(Math.max(...drawn) - Math.min(...drawn)).toBeGreaterThan(20)
  })

  it('with a single accepted send, still not its exact time', () => {
    const times = sendTimes(10_000)
    times.accepted(300)
    expect(draws(times).filter((ms) => ms === 300)).toEqual([])
  })

  it('keeps the last 32 only', () => {
    const times = sendTimes(10_000)
    for (let i = 0; i < 32; i++) times.accepted(5000)
    for (let i = 0; i < 32; i++) times.accepted(300)
    expect(Math.max(...draws(times))).toBeLessThanOrEqual(300 * 1.05)
  })

  it('never draws more than the deadline, nor less than nothing', () => {
    const times = sendTimes(500)
    times.accepted(9000)
    const capped = draws(times)
    expect(Math.min(...capped)).toBeGreaterThanOrEqual(475)
    expect(Math.max(...capped)).toBeLessThanOrEqual(500)
    const other = sendTimes(500)
    other.accepted(-5)
    expect(other.draw()).toBe(0)
  })
})

describe('until', () => {
  it('resolves once the time has passed since the start, and at once when it already has', async () => {
    const started = performance.now()
    await until(started, 120)
    expect(performance.now() - started).toBeGreaterThanOrEqual(120)
    const late = performance.now()
    await until(late - 1000, 50)
    expect(performance.now() - late).toBeLessThan(1000)
  })
})
