import { useService } from './run'
import { startTrustHostService } from './services'
import { fuzzTrustHost } from './trust-host'

/**
 * Fuzzed requests get a safe answer from the service with `trustHost: true` and no `url`.
 * FUZZ_RUNS and FUZZ_SEED: see ./settings.
 */
describe('fuzz: the service with trustHost and no url', () => {
  const use = useService(startTrustHostService)

  describe('any request, with any Host and X-Forwarded-*', () => fuzzTrustHost(use))
})
