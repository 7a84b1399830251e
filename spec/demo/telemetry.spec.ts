import { eventually } from '../support/demo'
import { startDemo, type Demo } from '../support/demo-process'
import { freePort } from '../support/process'

/**
 * The demo with OpenTelemetry (examples/demo/telemetry.ts): `OTEL=console` prints the service's
 * spans; `OTEL=prometheus` serves its metrics to Prometheus. Without OTEL it says nothing of it.
 */
jest.setTimeout(60_000)

let demo: Demo | undefined
afterEach(async () => {
  await demo?.process.stop()
  demo = undefined
})

it('OTEL=console: says so at start, and prints the auth.session span of a request', async () => {
  demo = await startDemo({ OTEL: 'console' })
  expect(demo.process.output()).toContain('demo: OTEL=console: spans and metrics (every 10 s) are printed here')
  expect((await fetch(`${demo.base}/session`)).status).toBe(200)
  await eventually(() => (demo!.process.output().includes("name: 'auth.session'") ? true : undefined), 'the span')
  expect(demo.process.output()).toContain("'http.route': '/api/auth/session'")
})

it('OTEL=prometheus: the exporter serves the service’s metrics after a few requests', async () => {
  const port = await freePort()
  demo = await startDemo({ OTEL: 'prometheus', OTEL_PROMETHEUS_PORT: String(port) })
  for (let i = 0; i < 3; i++) expect((await fetch(`${demo.base}/session`)).status).toBe(200)
  const scraped = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  expect(scraped).toMatch(/^auth_session_checks_total\{auth_result="none"[^}]*\} 3/m)
})

it('without OTEL: nothing of OpenTelemetry', async () => {
  demo = await startDemo()
  expect((await fetch(`${demo.base}/session`)).status).toBe(200)
  expect(demo.process.output()).not.toContain('OTEL')
  expect(demo.process.output()).not.toContain("name: 'auth.session'")
})
