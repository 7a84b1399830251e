import type { Telemetry } from '../../infra/telemetry'

/** The endpoints of a provider the service calls, as telemetry names them (a bounded set). */
export type ProviderEndpoint = 'discovery' | 'jwks' | 'token' | 'refresh' | 'userinfo'

/** Runs one call to a provider's `endpoint` in its span, and measures it (`auth.provider.duration`). */
export type ProviderProbe = <T>(endpoint: ProviderEndpoint, work: () => Promise<T>) => Promise<T>

/** A probe that only calls: for the code paths that have no telemetry (specs, a strategy's own use). */
export const UNOBSERVED: ProviderProbe = (_endpoint, work) => work()

/**
 * The probe of one configured provider: a child span `auth.provider.<endpoint>` of the request's
 * (with the configured provider's id and the endpoint's name, nothing from the provider's answers),
 * and the call's duration in seconds by provider, endpoint and outcome (`success`, `timeout`,
 * `error`). A failure is named by its class, never by its message (which may quote an answer).
 */
export function providerProbe(telemetry: Telemetry, providerId: string): ProviderProbe {
  return async (endpoint, work) => {
    const started = performance.now()
    const attributes = { 'auth.provider': providerId, 'auth.endpoint': endpoint }
    try {
      const value = await telemetry.span(`auth.provider.${endpoint}`, attributes, work)
      measured(telemetry, started, { ...attributes, 'auth.outcome': 'success' })
      return value
    } catch (error) {
      measured(telemetry, started, { ...attributes, 'auth.outcome': timedOut(error) ? 'timeout' : 'error' })
      throw error
    }
  }
}

function measured(telemetry: Telemetry, started: number, attributes: Record<string, string>): void {
  telemetry.record('auth.provider.duration', (performance.now() - started) / 1000, attributes)
}

/** Marks an error of the package's own deadline (./deadline.ts): a timeout, whatever its text says. */
export const TIMED_OUT = Symbol('timed out')

/**
 * A timeout: the deadline's mark, or fetch's abort (`TimeoutError`, itself or as the cause of
 * ./oidc-discovery.ts's Unreachable). Never judged by the message, which may quote a provider.
 */
function timedOut(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  if ((error as { [TIMED_OUT]?: true })[TIMED_OUT] === true || error.name === 'TimeoutError') return true
  return error.cause instanceof Error && error.cause.name === 'TimeoutError'
}
