// Mutation testing (`npm run mutate`): StrykerJS changes lib/ one small way at a time (a condition
// negated, a check removed, a constant changed) and runs the specs; a mutant no spec notices is a
// check the suite does not hold. Reports go to reports/mutation/ (git-ignored). See docs/testing.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  // What a mistake would let someone in: keys, MACs and sealing, CSRF, sessions, the provider
  // checks (discovery, ID token, iss), the sign-in flow (state, flow cookie, code and verifier
  // checks, the signIn decision, completion), and callbackUrl and redirect validation.
  mutate: [
    'lib/crypto/**/*.ts',
    'lib/csrf/**/*.ts',
    'lib/session/**/*.ts',
    'lib/sign-in/**/*.ts',
    'lib/providers/oauth/oidc-discovery.ts',
    'lib/providers/oauth/id-token.ts',
    'lib/providers/oauth/authorize.ts',
    'lib/routes/callback.ts',
    'lib/context.ts',
    'lib/urls/callback-url.ts',
    // The one JSON parser of untrusted token headers and payloads (JWE, JWS).
    'lib/util/json.ts',
    // Who an address is (one mailbox, one user), and what a refused recipient answers, and when.
    'lib/providers/email/address.ts',
    'lib/providers/email/send.ts',
    'lib/providers/email/timing.ts',
    // The bounds an attacker can push: limiter keys, revocation times (fail closed past the bound).
    'lib/store/memory.ts',
    // How long a record held from Redis may be trusted, and what is held.
    'lib/store/redis/liveness.ts',
    'lib/store/redis/held.ts',
    // The one refresh of a provider's tokens: the lock, the compare-and-write, the grace window.
    'lib/tokens/refresh-redis.ts',
    'lib/tokens/redis-vault.ts',
    'lib/tokens/refresh-inline.ts',
  ],
  testRunner: 'jest',
  jest: {
    projectType: 'custom',
    // The Express 5 project only, without the browser, demo, package and lint specs: see the file.
    configFile: 'jest.mutate.config.js',
    enableFindRelatedTests: true,
  },
  // Each mutant runs only the specs that executed its code in the first, unmutated run.
  coverageAnalysis: 'perTest',
  // Mutants that do not compile are discarded before any spec runs.
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // Two cores: two test runners (and one checker) at a time.
  concurrency: 2,
  ignorePatterns: ['dist', 'coverage', '.bench'],
  reporters: ['progress', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
}
