import { liveness } from '../../lib/store/redis/liveness'

/**
 * How long a read of a held value may wait for the tracking connection: at most FRESH_MS (250 ms)
 * from when the PING it waits for was sent, whoever asks and when. On a silent link (a half-open
 * connection: the PING never answered) every read then goes to Redis, none waits for the
 * connection to be replaced (10 s).
 */
describe('the tracking connection on a silent link', () => {
  let clock = 0
  const now = () => clock
  const silent = () => new Promise<unknown>(() => undefined)

  beforeEach(() => {
    jest.useFakeTimers()
    clock = 1_000
  })
  afterEach(() => jest.useRealTimers())

  const advance = (ms: number) => {
    clock += ms
    jest.advanceTimersByTime(ms)
  }

  it('lets the reads that wait for a PING go after 250 ms, and a read arriving later goes at once', async () => {
    const live = liveness(silent, now)
    live.confirm(clock - 300)
    const first = live.freshSoon()
    advance(100)
    const second = live.freshSoon()
    advance(149)
    // Not yet: 249 ms since the PING was sent.
    let settled = false
    void first.then(() => (settled = true))
    await Promise.resolve()
    expect(settled).toBe(false)
    advance(1)
    await expect(first).resolves.toBe(false)
    await expect(second).resolves.toBe(false)
    // The PING is still unanswered: a read now must not wait for it.
    advance(1_000)
    await expect(live.freshSoon()).resolves.toBe(false)
  })

  it('still answers fresh when the PING comes back in time', async () => {
    let answer: (value: unknown) => void = () => undefined
    const live = liveness(() => new Promise((resolve) => (answer = resolve)), now)
    live.confirm(clock - 300)
    const waiting = live.freshSoon()
    advance(10)
    answer('PONG')
    await expect(waiting).resolves.toBe(true)
  })
})
