/**
 * OpenTelemetry for the demo (docs/telemetry.md), loaded only when OTEL asks for it, before the
 * auth service is made:
 * - `OTEL=console`: spans and metrics printed to the console (metrics every 10 s);
 * - `OTEL=prometheus`: spans to the console too, metrics on a Prometheus exporter at
 *   http://localhost:9464/metrics (OTEL_PROMETHEUS_PORT for another port).
 * Without OTEL nothing of OpenTelemetry is loaded. Answers the line the demo prints, or null.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv): Promise<string | null> {
  const mode = env.OTEL
  if (mode === undefined || mode === '') return null
  if (mode !== 'console' && mode !== 'prometheus')
    throw new Error(`OTEL must be "console" or "prometheus"; got ${JSON.stringify(mode)}`)
  const { context, metrics, trace } = await import('@opentelemetry/api')
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks')
  const { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } =
    await import('@opentelemetry/sdk-trace-base')
  const { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader } =
    await import('@opentelemetry/sdk-metrics')
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] }),
  )
  if (mode === 'console') {
    const reader = new PeriodicExportingMetricReader({
      exporter: new ConsoleMetricExporter(),
      exportIntervalMillis: 10_000,
    })
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
    return 'demo: OTEL=console: spans and metrics (every 10 s) are printed here\n'
  }
  const port = Number(env.OTEL_PROMETHEUS_PORT ?? 9464)
  const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus')
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PrometheusExporter({ port })] }))
  return `demo: OTEL=prometheus: metrics at http://localhost:${port}/metrics, spans printed here\n`
}
