/**
 * An injected clock for the package under test: jest's modern fake timers with every timer API but
 * `Date` left real, so `Date.now()` and `new Date()` read the spec's time while timers, ticks,
 * microtasks and `performance` keep running (supertest and Node's HTTP server need them).
 * Times are in seconds since the epoch, like the session claims.
 */
const REAL = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const

/** Fakes `Date` only, reading `seconds`. Pair with `restoreClock()` after the test. */
export function useClock(seconds: number): void {
  jest.useFakeTimers({ doNotFake: [...REAL], now: seconds * 1000 })
}

/** Moves the faked clock to `seconds`. Between moves it stands still: nothing advances the fake clock. */
export function setClock(seconds: number): void {
  jest.setSystemTime(seconds * 1000)
}

/** Real time again. */
export function restoreClock(): void {
  jest.useRealTimers()
}

/** For a whole describe block or file: the clock at `seconds` before each test, real time after each. */
export function clockAt(seconds: number): void {
  beforeEach(() => useClock(seconds))
  afterEach(restoreClock)
}
