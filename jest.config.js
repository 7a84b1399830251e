// Every spec runs on Express 5; the route, flow, accounts and password HTTP specs run a second time on Express 4, with
// `express` mapped to the `express4` alias for both the specs and the package under test; the Redis
// specs run a third time on ioredis 6 (`ioredis` mapped to the `ioredis6` alias).
const { availableParallelism } = require('node:os')

const common = {
  // Transpiled one file at a time (ts-jest with isolatedModules: TypeScript's own emit, jest.mock
  // hoisted), not type-checked: `npm test` runs `tsc --noEmit` over lib/, spec/ and examples/ first.
  transform: { '^.+\\.tsx?$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.spec.ts'],
}

module.exports = {
  testTimeout: 30000,
  // Two workers a core (jest's default is one fewer than the cores: a single one on CI's two). Most
  // spec files spend their time waiting on servers, child processes, Chromium and timers, not on
  // the CPU; docs/testing.md has the figures.
  maxWorkers: 2 * availableParallelism(),
  reporters: ['default', '<rootDir>/spec/support/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'express5' },
    {
      ...common,
      displayName: 'express4',
      testMatch: [
        '<rootDir>/spec/routes/**/*.spec.ts',
        '<rootDir>/spec/flows/**/*.spec.ts',
        '<rootDir>/spec/accounts/**/*.spec.ts',
        // Passwords over HTTP (the units of spec/password, policy, throttle, hashing, run once).
        '<rootDir>/spec/password/{sign-in,signup,reset,change,throttle-http,enumeration,hashing-limit}.spec.ts',
        '<rootDir>/spec/http/mount.spec.ts',
        '<rootDir>/spec/client/**/*.spec.ts',
        // requireAccessToken(), an API's middleware, and the service's tokens it accepts.
        '<rootDir>/spec/resource/**/*.spec.ts',
        '<rootDir>/spec/access-tokens/**/*.spec.ts',
      ],
      moduleNameMapper: { '^express$': '<rootDir>/node_modules/express4' },
    },
    {
      // The Redis specs again on ioredis 6 (the `ioredis6` alias). lib/ imports ioredis for types only
      // and drives the client the spec gives it (tracking.ts's listener is that client's `duplicate()`).
      ...common,
      displayName: 'ioredis6',
      testMatch: [
        '<rootDir>/spec/redis/**/*.spec.ts',
        '<rootDir>/spec/session/database-*.spec.ts',
        '<rootDir>/spec/security/redis-sessions.spec.ts',
        '<rootDir>/spec/resource/revocation.spec.ts',
        '<rootDir>/spec/access-tokens/revocation.spec.ts',
      ],
      moduleNameMapper: { '^ioredis$': '<rootDir>/node_modules/ioredis6' },
    },
  ],
}
