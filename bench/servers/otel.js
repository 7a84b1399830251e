// Preloaded (`node --require`) by the `-otel` rows: the OpenTelemetry SDK registered in the server's
// process as an app would, before Express and the package load. Every request sampled
// (AlwaysOnSampler), the HTTP server instrumented (@opentelemetry/instrumentation-http), spans through
// a BatchSpanProcessor to an exporter that drops them, metrics read every 5 s by a periodic reader
// whose exporter drops them too (so the gauges' callbacks run).
const { context, metrics, trace } = require('@opentelemetry/api')
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks')
const { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base')
const { MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics')
const { registerInstrumentations } = require('@opentelemetry/instrumentation')
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http')

const SUCCESS = { code: 0 }
const dropped = {
  export: (_items, done) => done(SUCCESS),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
}

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
const tracerProvider = new BasicTracerProvider({
  sampler: new AlwaysOnSampler(),
  spanProcessors: [new BatchSpanProcessor(dropped)],
})
trace.setGlobalTracerProvider(tracerProvider)
const meterProvider = new MeterProvider({
  readers: [new PeriodicExportingMetricReader({ exporter: dropped, exportIntervalMillis: 5000 })],
})
metrics.setGlobalMeterProvider(meterProvider)
registerInstrumentations({ instrumentations: [new HttpInstrumentation()], tracerProvider, meterProvider })
