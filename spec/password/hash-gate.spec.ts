import { hashGate } from '../../lib/features/password/hash-gate'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the hashing gate', () => {
  it('never runs more than `limit` at once, queues `queue` more, and answers null past them', async () => {
    const gate = hashGate({ limit: 2, queue: 3, wait: 5000 })
    let running = 0
    let most = 0
    const work = async () => {
      running++
      most = Math.max(most, running)
      await sleep(30)
      running--
      return 'done'
    }
    const results = await Promise.all(Array.from({ length: 20 }, () => gate.run(work)))
    expect(results.filter((r) => r === 'done')).toHaveLength(5)
    expect(results.filter((r) => r === null)).toHaveLength(15)
    expect(most).toBe(2)
    expect(gate.busy).toBe(0)
    // Free again: the next ones run.
    expect(await gate.run(work)).toBe('done')
  })

  it('a wait that runs out answers null and leaves its place', async () => {
    const gate = hashGate({ limit: 1, queue: 5, wait: 50 })
    const long = gate.run(() => sleep(300).then(() => 'long'))
    const started = performance.now()
    expect(await gate.run(async () => 'late')).toBeNull()
    expect(performance.now() - started).toBeLessThan(250)
    expect(await long).toBe('long')
    expect(await gate.run(async () => 'next')).toBe('next')
  })

  it('a failing job frees its slot', async () => {
    const gate = hashGate({ limit: 1, queue: 0, wait: 50 })
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await gate.run(async () => 'ok')).toBe('ok')
  })
})
