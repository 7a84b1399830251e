// `npm run dashboard`: the picture of docs/telemetry.md (docs/images/telemetry-dashboard.png). An app
// with the service, the OpenTelemetry SDK and its Prometheus exporter, the test IdP (its token
// endpoint slowed a little) and a mail server on loopback; half a minute of traffic (sign-ins that
// succeed and that the user declines, e-mail sign-ins, session reads with and without a session, a
// burst over the request limit); the exporter scraped every second; the panels drawn as SVG from
// those scrapes and screenshot in Chromium. Not Grafana: a page of the repository's own over the
// exporter's data. Run with `node --require ./spec/e2e/esbuild-child.js spec/dashboard/render.ts`.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { metrics } from '@opentelemetry/api'
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus'
import { MeterProvider } from '@opentelemetry/sdk-metrics'
import { email, oidc } from '../../lib'
import { freeSite, serve } from '../support/app'
import { Browser } from '../support/browser'
import { launchChromium } from '../support/chromium'
import { startSmtp } from '../support/smtp'
import { startIdp } from '../support/idp'
import { freePort } from '../support/process'
import { dashboardPage, parseScrape, type Scrape } from './panels'

async function main(): Promise<void> {
  const port = await freePort()
  const exporter = new PrometheusExporter({ port })
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [exporter] }))
  const site = await freeSite()
  const secret = 'dashboard-client-secret'
  const idp = await startIdp({
    clients: [
      {
        client_id: 'app',
        client_secret: secret,
        redirect_uris: [`${site.base}/callback/idp`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    tokenEndpointDelayMs: 40,
  })
  const smtp = await startSmtp()
  const served = await serve(
    {
      providers: [
        oidc({ id: 'idp', name: 'Company SSO', issuer: idp.issuer, clientId: 'app', clientSecret: secret }),
        email({ from: 'auth@example.com', server: smtp.url }),
      ],
      requestRateLimit: { limit: 110, windowSeconds: 60 },
    },
    { site },
  )
  const scrapes: Scrape[] = []
  const started = Date.now()
  const scrape = async () => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    scrapes.push(parseScrape(text, (Date.now() - started) / 1000))
  }
  const timer = setInterval(() => void scrape().catch(() => undefined), 1000)
  const signedIn: Browser[] = []
  for (let second = 0; second < 30; second++) {
    const tick = Date.now()
    const browser = new Browser(served)
    const authorization = await browser.authorizationUrl('idp').catch(() => null)
    if (authorization) {
      const back = await browser.login(authorization, second % 5 === 4 ? 'deny' : 'login')
      await browser.returnTo(back)
      signedIn.push(browser)
    }
    if (second % 3 === 0) {
      const reader = new Browser(served)
      const body = new URLSearchParams({ email: `user${second}@example.com`, csrfToken: await reader.csrfToken() })
      await reader.jar.fetch(`${served.base}/signin/email`, { method: 'POST', body })
      const link = /https?:\/\/\S+\/callback\/email\?\S+/.exec((await smtp.nextMessage()).text ?? '')?.[0]
      if (link) await reader.jar.fetch(link, {}, { crossSite: true })
    }
    for (const browser of signedIn.slice(-8)) await browser.session()
    for (let i = 0; i < 5; i++) await fetch(`${served.base}/session`)
    // A client in a hurry past the request limit, from second 20 on.
    if (second >= 20) await Promise.all(Array.from({ length: 6 }, () => new Browser(served).startSignIn('idp')))
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - tick))))
  }
  clearInterval(timer)
  const html = dashboardPage(scrapes)
  const chromium = await launchChromium()
  try {
    const page = await chromium.newPage({ viewport: { width: 1280, height: 540 } })
    await page.setContent(html)
    const out = join(__dirname, '../../docs/images/telemetry-dashboard.png')
    writeFileSync(out, await page.screenshot({ fullPage: true }))
    process.stdout.write(`dashboard: ${scrapes.length} scrapes drawn into ${out}\n`)
  } finally {
    await chromium.close()
    await served.close()
    await smtp.close()
    await idp.stop()
    await exporter.shutdown()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
