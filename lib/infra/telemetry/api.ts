/**
 * The part of `@opentelemetry/api` (an optional peer dependency) the package uses, typed here so
 * that no published declaration names the package: an app without it compiles and runs as before.
 * `loadApi()` answers null when it is not installed.
 */

export type AttributeValue = string | number | boolean
export type Attributes = Record<string, AttributeValue>

export interface OtelSpan {
  setAttribute(key: string, value: AttributeValue): unknown
  setAttributes(attributes: Attributes): unknown
  setStatus(status: { code: number; message?: string }): unknown
  recordException(exception: { name: string; message: string }): unknown
  end(): void
}

export interface OtelContext {
  readonly __context?: never
}

export interface OtelTracer {
  startSpan(name: string, options: { kind?: number; attributes?: Attributes }, context?: OtelContext): OtelSpan
}

export interface OtelCounter {
  add(value: number, attributes?: Attributes): void
}

export interface OtelHistogram {
  record(value: number, attributes?: Attributes): void
}

export interface OtelObservableResult {
  observe(value: number, attributes?: Attributes): void
}

export interface OtelObservableGauge {
  addCallback(callback: (result: OtelObservableResult) => void): void
}

export interface OtelMeter {
  createCounter(name: string, options: { description: string; unit?: string }): OtelCounter
  createHistogram(
    name: string,
    options: { description: string; unit?: string; advice?: { explicitBucketBoundaries: readonly number[] } },
  ): OtelHistogram
  createObservableGauge(name: string, options: { description: string; unit?: string }): OtelObservableGauge
}

export interface OtelApi {
  readonly trace: {
    getTracerProvider(): { getDelegate?(): unknown }
    getTracer(name: string, version?: string): OtelTracer
    setSpan(context: OtelContext, span: OtelSpan): OtelContext
  }
  readonly metrics: {
    getMeterProvider(): unknown
    getMeter(name: string, version?: string): OtelMeter
  }
  readonly context: {
    active(): OtelContext
    with<T>(context: OtelContext, fn: () => T): T
  }
  readonly ProxyTracerProvider: new () => { getDelegate(): unknown }
  readonly SpanStatusCode: { readonly ERROR: number }
  readonly SpanKind: { readonly INTERNAL: number; readonly CLIENT: number; readonly SERVER: number }
}

/** `@opentelemetry/api` when the app has it installed, else null (loaded once). */
export function loadApi(): OtelApi | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@opentelemetry/api') as OtelApi
  } catch {
    return null
  }
}
