import { liveness } from '../../lib/infra/store/redis/liveness'

/**
 * How long a read of a held value may wait for the tracking connection: at most FRESH_MS (50 ms)
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

  it('lets the reads that wait for a PING go after 50 ms, and a read arriving later goes at once', async () => {
    const live = liveness(silent, now)
    live.confirm(clock - 100)
    const first = live.freshSoon()
    advance(20)
    const second = live.freshSoon()
    advance(30)
    await expect(first).resolves.toBe(false)
    await expect(second).resolves.toBe(false)
    // The PING is still unanswered: a read now must not wait for it.
    advance(1_000)
    await expect(live.freshSoon()).resolves.toBe(false)
  })

  it('still answers fresh when the PING comes back in time', async () => {
    let answer: (value: unknown) => void = () => undefined
    const live = liveness(() => new Promise((resolve) => (answer = resolve)), now)
    live.confirm(clock - 100)
    const waiting = live.freshSoon()
    advance(10)
    answer('PONG')
    await expect(waiting).resolves.toBe(true)
  })
})

/**
 * A slow link and a busy process both read a PONG late. A PONG vouches for FRESH_MS (250 ms) from
 * when its PING was sent, but only while this process has spent less than LINK_MS (50 ms) idle since
 * then (time it could have read a newer PONG in): so a process too busy to read its sockets in time
 * (a turn of its event loop longer than 50 ms) keeps the cache on, and one with time to spare never
 * trusts a link that takes 50 ms or more.
 */
describe('the tracking connection: a slow link and a busy process', () => {
  let clock = 0
  let idleMs = 0
  const now = () => clock
  const idle = () => idleMs
  let answer: (value: unknown) => void = () => undefined
  const send = () => new Promise<unknown>((resolve) => (answer = resolve))

  beforeEach(() => {
    jest.useFakeTimers()
    clock = 1_000
    idleMs = 0
  })
  afterEach(() => jest.useRealTimers())

  const settled = () => Promise.resolve().then(() => undefined)

  it('trusts a PONG read 200 ms late by a process busy all that time, for 250 ms from its PING', async () => {
    const live = liveness(send, now, idle)
    live.confirm(clock)
    clock += 300 // the set-up's answer is too old by now
    expect(live.fresh()).toBe(false) // sends a PING
    clock += 200 // busy: no idle time
    answer('PONG')
    await settled()
    expect(live.fresh()).toBe(true)
    clock += 49
    expect(live.fresh()).toBe(true)
    clock += 1 // 250 ms since the PING was sent
    expect(live.fresh()).toBe(false)
  })

  it('never trusts a PONG that this process waited 50 ms or more for (a slow link)', async () => {
    const live = liveness(send, now, idle)
    live.confirm(clock)
    clock += 300
    expect(live.fresh()).toBe(false)
    clock += 60
    idleMs += 50 // idle, waiting for Redis, 50 of those 60 ms
    answer('PONG')
    await settled()
    expect(live.fresh()).toBe(false)
    // The next PING over the same slow link, and the one after: never fresh.
    for (let i = 0; i < 2; i++) {
      clock += 10
      idleMs += 5
      expect(live.fresh()).toBe(false)
      clock += 100
      idleMs += 100
      answer('PONG')
      await settled()
      expect(live.fresh()).toBe(false)
    }
  })

  it('stops trusting a quick PONG once this process has waited 50 ms since its PING (the link fell silent)', async () => {
    const live = liveness(send, now, idle)
    live.confirm(clock - 300)
    expect(live.fresh()).toBe(false) // sends a PING
    clock += 1
    idleMs += 1
    answer('PONG')
    await settled()
    expect(live.fresh()).toBe(true) // and sends the next PING once 25 ms old: never answered
    clock += 48
    idleMs += 48
    expect(live.fresh()).toBe(true)
    clock += 1
    idleMs += 1 // 50 ms idle since the PING that vouches was sent
    expect(live.fresh()).toBe(false)
  })

  it('does not take a slow link for a stuck one: its PONGs keep the connection', async () => {
    const live = liveness(send, now, idle)
    live.confirm(clock)
    for (let t = 0; t < 12_000; t += 200) {
      live.ping()
      clock += 100
      idleMs += 100
      answer('PONG')
      await settled()
      clock += 100
    }
    expect(live.fresh()).toBe(false)
    expect(live.stuck()).toBe(false)
  })

  it('lets a read wait at most 50 ms for a PING, even when its answer would still be fresh', async () => {
    const live = liveness(send, now, idle)
    live.confirm(clock)
    clock += 300
    const waiting = live.freshSoon()
    clock += 50
    jest.advanceTimersByTime(50)
    await expect(waiting).resolves.toBe(false)
  })
})
