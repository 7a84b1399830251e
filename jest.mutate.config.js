// The jest configuration of a mutation run (stryker.config.mjs): the Express 5 project only, as one
// flat config (Stryker's per-test coverage wraps a single config's test environment, not a
// `projects` list), without the specs that cannot share 2 cores with it: the browser (Chromium),
// the demo (builds and starts the demo) and the package spec (builds the package), nor the lint
// spec (ESLint over lib/, which in a mutation run is Stryker's instrumented copy; it runs no lib
// code, so it could kill no mutant).
//
// lib/ is a root too: Stryker runs jest with --findRelatedTests, which follows imports only through
// files jest has indexed. With spec/ alone, a spec reaching lib/features/oauth/authorize.ts through
// lib/index.ts would not count as related, and the flow specs would never run against its mutants.
/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/spec', '<rootDir>/lib'],
  testMatch: ['**/*.spec.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/spec/flows/browser\\.spec\\.ts$',
    '<rootDir>/spec/demo/',
    '<rootDir>/spec/package\\.spec\\.ts$',
    '<rootDir>/spec/lint/',
  ],
  testTimeout: 30000,
}
