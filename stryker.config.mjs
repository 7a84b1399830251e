// Mutation testing (`npm run mutate`): StrykerJS changes lib/ one small way at a time (a condition
// negated, a check removed, a constant changed) and runs the specs; a mutant no spec notices is a
// check the suite does not hold. Reports go to reports/mutation/ (git-ignored). See docs/testing.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  // What a mistake would let someone in: keys, MACs and sealing, CSRF, sessions, the provider
  // checks (discovery, ID token, iss), the sign-in flow (state, flow cookie, code and verifier
  // checks, the signIn decision, completion), and callbackUrl and redirect validation.
  mutate: [
    'lib/infra/crypto/**/*.ts',
    'lib/infra/csrf/**/*.ts',
    'lib/core/csrf-failure.ts',
    'lib/core/session/**/*.ts',
    'lib/core/sign-in/**/*.ts',
    // Every route's policy (origin check, CSRF, rate limit), enforced in one place.
    'lib/core/router.ts',
    'lib/core/route-table.ts',
    'lib/features/oauth/oidc-discovery.ts',
    'lib/features/oauth/id-token.ts',
    'lib/features/oauth/authorize.ts',
    // Each provider's start and finish (what lib/sign-in/ held before the features had folders).
    'lib/features/oauth/start.ts',
    'lib/features/oauth/callback.ts',
    'lib/features/email/start.ts',
    'lib/features/email/callback.ts',
    'lib/features/passkey/callback.ts',
    'lib/features/passkey/challenge.ts',
    'lib/features/passkey/register.ts',
    'lib/features/oidc-logout/backchannel.ts',
    'lib/features/oidc-logout/provider-logout.ts',
    'lib/core/context.ts',
    'lib/infra/urls/callback-url.ts',
    // The one JSON parser of untrusted token headers and payloads (JWE, JWS).
    'lib/infra/util/json.ts',
    // Who an address is (one mailbox, one user), and what a refused recipient answers, and when.
    'lib/features/email/address.ts',
    'lib/features/email/send.ts',
    'lib/features/email/timing.ts',
    // The bounds an attacker can push: limiter keys, revocation times (fail closed past the bound).
    'lib/infra/store/memory.ts',
    // How long a record held from Redis may be trusted, and what is held.
    'lib/infra/store/redis/liveness.ts',
    'lib/infra/store/redis/held.ts',
    // The one refresh of a provider's tokens: the lock, the compare-and-write, the grace window.
    'lib/features/provider-tokens/refresh-redis.ts',
    'lib/features/provider-tokens/redis-vault.ts',
    'lib/features/provider-tokens/refresh-inline.ts',
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
