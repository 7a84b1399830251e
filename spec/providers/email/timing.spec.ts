import { sendTimes, until } from '../../../lib/providers/email/timing'

/** The time a refused recipient's answer is made to take: one of the recent accepted sends', within the deadline. */
describe('sendTimes', () => {
  it('before any accepted send: 1 s, or the deadline when that is shorter', () => {
    expect(sendTimes(10_000).draw()).toBe(1000)
    expect(sendTimes(400).draw()).toBe(400)
  })

  it('draws one of the accepted sends, each of them in time', () => {
    const times = sendTimes(10_000)
    for (const ms of [310, 320, 330]) times.accepted(ms)
    const drawn = new Set(Array.from({ length: 200 }, () => times.draw()))
    expect([...drawn].sort()).toEqual([310, 320, 330])
  })

  it('keeps the last 32 only', () => {
    const times = sendTimes(10_000)
    for (let i = 0; i < 32; i++) times.accepted(5000)
    for (let i = 0; i < 32; i++) times.accepted(300)
    const drawn = new Set(Array.from({ length: 200 }, () => times.draw()))
    expect([...drawn]).toEqual([300])
  })

  it('never draws more than the deadline, nor less than nothing', () => {
    const times = sendTimes(500)
    times.accepted(9000)
    expect(times.draw()).toBe(500)
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
