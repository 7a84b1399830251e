import { keyRing } from '../crypto/keys'
import { mac } from '../crypto/mac'
import { isAuthError } from '../errors'
import { loadApi, type Attributes, type OtelApi, type OtelMeter, type OtelSpan, type OtelTracer } from './api'
import { COUNTERS, GAUGES, HISTOGRAMS, type CounterName, type GaugeName, type HistogramName } from './instruments'

export type { Attributes } from './api'
export type { CounterName, GaugeName, HistogramName } from './instruments'

/**
 * Traces and metrics through `@opentelemetry/api` (docs/telemetry.md). The API is an optional peer:
 * without it every call here is an empty function. With it but no SDK registered, a request pays a
 * comparison: no span is started unless a tracer provider is registered, and metrics go to the
 * API's no-op meter until a meter provider is (the instruments are made again when it changes, so
 * an SDK registered after `auth()` is seen).
 *
 * What goes in an attribute is the caller's choice and is bounded: route templates, provider ids
 * of the configuration, outcomes, error codes. A user is named by `userRef` (a keyed hash), never by
 * id, address, token or code.
 */
export interface Telemetry {
  /** Whether a tracer provider is registered: a caller builds a span's attributes only then. */
  tracing(): boolean
  /** The span of one request to a route, or null when no tracer provider is registered. */
  route(name: string, attributes: Attributes): RouteSpan | null
  /** `work` in a child span of the active one (an outgoing call, a store call); errors recorded with their code. */
  span<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T>
  add(counter: CounterName, attributes?: Attributes, value?: number): void
  record(histogram: HistogramName, value: number, attributes?: Attributes): void
  /** An observable gauge's reading, made when the SDK collects. */
  observe(gauge: GaugeName, read: (observe: (value: number, attributes?: Attributes) => void) => void): void
  /** A user's name in telemetry: a keyed hash of the id (22 characters), stable across instances. */
  userRef(userId: string): string
}

export interface RouteSpan {
  /** The route's outcome (`success`, `failure`, `error`, …) and the error code, when it has one. */
  outcome(outcome: string, code?: string): void
  setAttribute(key: string, value: string | number | boolean): void
  /** Runs `fn` with this span active, so that the calls it makes are its children. */
  run<T>(fn: () => T): T
  /** Ends the span: the outcome set, else one from the answer's status or the error thrown. */
  end(status: number, error?: unknown): void
}

const NAME = 'express-auth-service'

/** Telemetry that does nothing: without @opentelemetry/api. */
export const NO_TELEMETRY: Telemetry = Object.freeze({
  tracing: () => false,
  route: () => null,
  span: <T>(_name: string, _attributes: Attributes, work: () => Promise<T>) => work(),
  add: () => undefined,
  record: () => undefined,
  observe: () => undefined,
  userRef: () => '',
})

export function createTelemetry(secrets: readonly string[], version: string, api = loadApi()): Telemetry {
  if (api === null) return NO_TELEMETRY
  const userKey = keyRing(secrets, 'telemetry-user').current
  const tracing = tracerOf(api, version)
  const meter = meterOf(api, version)
  return Object.freeze({
    tracing: () => tracing() !== null,
    route(name: string, attributes: Attributes) {
      const tracer = tracing()
      return tracer && routeSpan(api, tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes }))
    },
    span<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
      const tracer = tracing()
      if (tracer === null) return work()
      const span = tracer.startSpan(name, { kind: api.SpanKind.CLIENT, attributes }, api.context.active())
      return api.context.with(api.trace.setSpan(api.context.active(), span), work).then(
        (value) => {
          span.end()
          return value
        },
        (error: unknown) => {
          failed(api, span, error)
          span.end()
          throw error
        },
      )
    },
    add(counter: CounterName, attributes?: Attributes, value = 1) {
      meter().counters[counter].add(value, attributes)
    },
    record(histogram: HistogramName, value: number, attributes?: Attributes) {
      meter().histograms[histogram].record(value, attributes)
    },
    observe(gauge: GaugeName, read) {
      meter.readers[gauge].push(read)
    },
    userRef(userId: string) {
      return mac(userKey, userId).slice(0, 22)
    },
  } satisfies Telemetry)
}

/** The tracer, or null while the global tracer provider is the API's no-op one. */
function tracerOf(api: OtelApi, version: string): () => OtelTracer | null {
  const noop = new api.ProxyTracerProvider().getDelegate()
  const tracer = api.trace.getTracer(NAME, version)
  return () => {
    const provider = api.trace.getTracerProvider()
    return (provider.getDelegate ? provider.getDelegate() : provider) === noop ? null : tracer
  }
}

type Readers = Record<GaugeName, Array<Parameters<Telemetry['observe']>[1]>>

interface Instruments {
  counters: Record<CounterName, ReturnType<OtelMeter['createCounter']>>
  histograms: Record<HistogramName, ReturnType<OtelMeter['createHistogram']>>
}

/** The instruments of the meter provider registered now, made again when another is registered. */
function meterOf(api: OtelApi, version: string): (() => Instruments) & { readers: Readers } {
  const readers = Object.fromEntries(Object.keys(GAUGES).map((name) => [name, []])) as unknown as Readers
  let provider: unknown = undefined
  let instruments: Instruments | undefined
  const current = () => {
    const now = api.metrics.getMeterProvider()
    if (instruments !== undefined && now === provider) return instruments
    provider = now
    const meter = api.metrics.getMeter(NAME, version)
    instruments = {
      counters: mapValues(COUNTERS, (name, options) => meter.createCounter(name, options)),
      histograms: mapValues(HISTOGRAMS, (name, options) => meter.createHistogram(name, options)),
    }
    for (const [name, options] of Object.entries(GAUGES) as Array<[GaugeName, (typeof GAUGES)[GaugeName]]>) {
      meter.createObservableGauge(name, options).addCallback((result) => {
        for (const read of readers[name]) {
          try {
            read((value, attributes) => result.observe(value, attributes))
          } catch {
            // A reading that fails is left out; the collection goes on.
          }
        }
      })
    }
    return instruments
  }
  return Object.assign(current, { readers })
}

function mapValues<K extends string, V, R>(record: Record<K, V>, make: (key: K, value: V) => R): Record<K, R> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, make(key as K, value as V)])) as Record<
    K,
    R
  >
}

function routeSpan(api: OtelApi, span: OtelSpan): RouteSpan {
  let outcome: string | null = null
  return {
    outcome(value: string, code?: string) {
      outcome = value
      span.setAttribute('auth.outcome', value)
      if (code !== undefined) span.setAttribute('error.type', code)
    },
    setAttribute(key, value) {
      span.setAttribute(key, value)
    },
    run(fn) {
      return api.context.with(api.trace.setSpan(api.context.active(), span), fn)
    },
    end(status: number, error?: unknown) {
      span.setAttribute('http.response.status_code', status)
      if (error !== undefined) failed(api, span, error)
      else if (outcome === null)
        span.setAttribute('auth.outcome', status >= 500 ? 'error' : status >= 400 ? 'failure' : 'success')
      if (status >= 500 && error === undefined) span.setStatus({ code: api.SpanStatusCode.ERROR })
      span.end()
    },
  }
}

/** An error on a span: its code (an AuthError's, else the class's name), never its message. */
function failed(api: OtelApi, span: OtelSpan, error: unknown): void {
  const code = isAuthError(error) ? error.code : error instanceof Error ? error.name.slice(0, 64) : typeof error
  span.setAttribute('error.type', code)
  span.setAttribute('auth.outcome', 'error')
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: code })
}
