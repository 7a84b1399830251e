/**
 * The little of a test framework the contract suites use, passed in by the caller: Jest's, Vitest's
 * and node:test's `describe`, `it` and `beforeEach` all fit. The suites assert with node:assert, so
 * they need no `expect` and run under any of them.
 */
export interface TestFramework {
  describe: (name: string, body: () => void) => unknown
  it: (name: string, body: () => Promise<void>) => unknown
  beforeEach: (body: () => Promise<void>) => unknown
}
