import { context, metrics, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import { MeterProvider, MetricReader, type DataPoint, type MetricData } from '@opentelemetry/sdk-metrics'

/**
 * The OpenTelemetry SDK registered for a spec, as an app registers it, with in-memory exporters:
 * every span that ended, and the metrics as a collection reads them. `stop()` unregisters it.
 */
export interface RegisteredTelemetry {
  spans(): ReadableSpan[]
  /** Spans named `name`, in the order they ended. */
  named(name: string): ReadableSpan[]
  metrics(): Promise<MetricData[]>
  /** The data points of one metric, their attributes and values (a histogram's as its count). */
  points(name: string): Promise<Array<{ attributes: Record<string, unknown>; value: number }>>
  reset(): void
  stop(): Promise<void>
}

class Reader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}

export function registerTelemetry(): RegisteredTelemetry {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const contextManager = new AsyncLocalStorageContextManager().enable()
  context.setGlobalContextManager(contextManager)
  trace.setGlobalTracerProvider(tracerProvider)
  const reader = new Reader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  metrics.setGlobalMeterProvider(meterProvider)
  const collect = async () => {
    const { resourceMetrics } = await reader.collect()
    return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)
  }
  return {
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((span) => span.name === name),
    metrics: collect,
    async points(name) {
      const metric = (await collect()).find((candidate) => candidate.descriptor.name === name)
      return ((metric?.dataPoints ?? []) as Array<DataPoint<unknown>>).map((point) => ({
        attributes: point.attributes,
        value: typeof point.value === 'number' ? point.value : (point.value as { count: number }).count,
      }))
    },
    reset: () => exporter.reset(),
    async stop() {
      trace.disable()
      metrics.disable()
      context.disable()
      await tracerProvider.shutdown()
      await meterProvider.shutdown()
    },
  }
}
