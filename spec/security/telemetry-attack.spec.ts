import { oidc } from '../../lib'
import { serve, type Served } from '../support/app'
import { auditLog, type AuditLog } from '../support/audit'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'
import { registerTelemetry, type RegisteredTelemetry } from '../support/telemetry'
import { startPasswordService, stopAll } from '../password/password-harness'

/**
 * An outsider against the telemetry of issue 36 (docs/telemetry.md): the SDK registered as an app
 * registers it, hostile requests over HTTP, a hostile issuer. What a request can put into spans,
 * metric labels and audit records, and whether it can inflate them. A test that fails is a finding.
 */
jest.setTimeout(60_000)

const MARK = 'zq7attackmark'

let otel: RegisteredTelemetry
let issuer: HostileIssuer
let liar: HostileIssuer
let served: Served
let log: AuditLog

beforeAll(async () => {
  otel = registerTelemetry()
  issuer = await startHostileIssuer()
  // Its discovery names an issuer whose text looks like the deadline's message.
  liar = await startHostileIssuer({ discovery: { issuer: 'an issuer that answered within 5 ms' } })
  log = auditLog()
  served = await serve({
    providers: [
      oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
      oidc({ id: 'liar', issuer: liar.issuer, clientId: liar.clientId, clientSecret: liar.clientSecret }),
    ],
    audit: log.sink,
  })
})
afterEach(() => issuer.reset())
afterAll(async () => {
  await served?.close()
  await issuer?.stop()
  await liar?.stop()
  await otel?.stop()
  await stopAll()
})

/** Everything the SDK got: span names, attributes, status messages, events; metric labels. */
async function everything(): Promise<string> {
  const spans = otel.spans().map((span) => ({
    name: span.name,
    attributes: span.attributes,
    status: span.status,
    events: span.events,
  }))
  const labels = (await otel.metrics()).flatMap((metric) =>
    (metric.dataPoints as Array<{ attributes: unknown }>).map((point) => point.attributes),
  )
  return JSON.stringify({ spans, labels })
}

describe('findings', () => {
  it('a provider id nobody configured never reaches the audit record (it is the path: any text, any length)', async () => {
    log.records.length = 0
    const chosen = `${MARK}\n{"forged":"record"}\u0000${'x'.repeat(4000)}`
    const res = await fetch(`${served.base}/callback/${encodeURIComponent(chosen)}?code=c&state=s`, {
      redirect: 'manual',
    })
    expect(res.status).toBe(404)
    await log.settled()
    // Today: a signin Failure NotFound whose unmapped.provider is the attacker's decoded path segment
    // (newline, NUL and 4 KB included), handed to the app's SIEM.
    const carried = log.records.flatMap((record) => {
      const provider = String(record.unmapped.provider)
      return provider.includes(MARK) ? [{ length: provider.length, newline: provider.includes('\n') }] : []
    })
    expect(carried).toEqual([])
  })

  it('a 404 for a provider nobody configured is no sign-in: neither an audit record nor a counted failure', async () => {
    log.records.length = 0
    const before = await failures()
    // No flow cookie: not rate-limited, so one request is one record, as fast as the attacker sends.
    for (let i = 0; i < 20; i++)
      expect((await fetch(`${served.base}/callback/nobody-${i}`, { redirect: 'manual' })).status).toBe(404)
    await log.settled()
    const records = await log.of('signin')
    expect(records.map((record) => `${record.status_detail} ${record.unmapped.provider}`)).toEqual([])
    expect(await failures()).toBe(before)
  })

  it("a provider's error text decides no label: a discovery that failed on its issuer is an error, not a timeout", async () => {
    const res = await new Browser(served).startSignIn('liar')
    // An issuer mismatch is the configuration's: the error page says so.
    expect(res.headers.get('location')).toBe(`${served.base}/error?error=Configuration`)
    const discovery = (await otel.points('auth.provider.duration')).filter(
      (point) => point.attributes['auth.provider'] === 'liar',
    )
    // Today: `/ within \d+ ms/` is matched against the error's message, which quotes the issuer's document.
    expect(discovery).toEqual([
      { attributes: { 'auth.provider': 'liar', 'auth.endpoint': 'discovery', 'auth.outcome': 'error' }, value: 1 },
    ])
  })

  it('a GET of the password pages without a link (a crawler, another site’s <img>) writes no Failure record', async () => {
    const records = auditLog()
    const service = await startPasswordService({ options: { audit: records.sink } })
    for (const page of ['/password/reset', '/password/confirm']) {
      const res = await fetch(`${service.base}${page}`, {
        redirect: 'manual',
        headers: { 'Sec-Fetch-Site': 'cross-site' },
      })
      expect(res.status).toBe(302)
    }
    await records.settled()
    // Today: a `password.reset` and a `user.created` Failure Verification per GET, unlimited, with
    // the visitor's address: the docs call them "a link refused", but no link was given.
    expect(records.records.map((record) => record.metadata.event_code)).toEqual([])
  })
})

describe('what held', () => {
  it('a hostile request puts nothing of its own into spans or metric labels', async () => {
    otel.reset()
    const headers = {
      Cookie: `auth.session-token=${MARK}-cookie; ${MARK}=1`,
      Authorization: `Bearer ${MARK}-bearer`,
      'User-Agent': `${MARK}-agent`,
      'X-Forwarded-For': '203.0.113.9',
      'X-Auth-Return-Redirect': '1',
    }
    const paths = [
      `/session?token=${MARK}-query`,
      `/callback/hostile?code=${MARK}-code&state=${MARK}-state&error=${MARK}-error&iss=${MARK}`,
      `/callback/hostile?error=access_denied&error_description=${MARK}`,
      `/callback/${MARK}?code=x`,
      `/signin/${MARK}-${'y'.repeat(6000)}`,
      `/callback/${'%ZZ'.repeat(100)}${MARK}`,
      `/${MARK}/deep/path`,
    ]
    for (const path of paths) {
      const res = await fetch(`${served.base}${path}`, { headers, redirect: 'manual' })
      expect(res.status).toBeLessThan(500)
    }
    const browser = new Browser(served)
    const post = await browser.jar.fetch(`${served.base}/signin/${MARK}`, {
      method: 'POST',
      headers,
      body: new URLSearchParams({ csrfToken: await browser.csrfToken(), callbackUrl: `/${MARK}` }),
    })
    expect(post.status).toBeLessThan(500)
    expect(otel.spans().length).toBeGreaterThan(0)
    expect(await everything()).not.toContain(MARK)
  })

  it("a hostile issuer's answers (its subject, address, error texts) reach no span or label; the user is a keyed hash", async () => {
    otel.reset()
    issuer.behave({
      idTokenClaims: { sub: `${MARK}-sub`, email: `${MARK}@example.com` },
      userinfo: { sub: `${MARK}-sub`, email: `${MARK}@example.com`, name: MARK },
    })
    const browser = new Browser(served)
    expect((await browser.signIn('hostile')).status).toBe(302)
    expect(await browser.session()).toMatchObject({ user: { email: `${MARK}@example.com` } })
    const [callback] = otel.named('auth.callback')
    expect(callback?.attributes['enduser.pseudo.id']).toMatch(/^[\w-]{22}$/)
    // Then a refused one: the ID token for another client.
    issuer.behave({ idTokenClaims: { aud: `${MARK}-aud`, nonce: `${MARK}-nonce` } })
    const refused = await new Browser(served).signIn('hostile')
    expect(refused.headers.get('location')).toBe(`${served.base}/error?error=OAuthCallback`)
    expect(otel.named('auth.provider.token').length).toBe(2)
    expect(await everything()).not.toContain(MARK)
  })

  it('labels stay bounded: 300 made-up provider ids make no new label value and no span attribute', async () => {
    otel.reset()
    const ids = Array.from({ length: 300 }, (_, i) => `made-up-${i}-${Date.now()}`)
    for (const id of ids) await fetch(`${served.base}/callback/${id}`, { redirect: 'manual' })
    const values = new Set(
      (await otel.points('auth.signin.attempts')).map((point) => String(point.attributes['auth.provider'])),
    )
    expect([...values].every((value) => ['hostile', 'liar', 'unknown'].includes(value))).toBe(true)
    const text = await everything()
    expect(ids.some((id) => text.includes(id))).toBe(false)
  })

  it('an audit record holds no cookie, code or token of the request, and the user agent is cut to 256', async () => {
    log.records.length = 0
    const res = await fetch(`${served.base}/callback/hostile?code=${MARK}-code&state=${MARK}-state`, {
      redirect: 'manual',
      headers: { Cookie: `auth.session-token=${MARK}-cookie`, 'User-Agent': `${'u'.repeat(5000)}${MARK}` },
    })
    expect(res.status).toBe(302)
    const [record] = await log.of('signin')
    expect(record).toMatchObject({
      status: 'Failure',
      status_detail: 'OAuthCallback',
      unmapped: { provider: 'hostile' },
    })
    expect(record?.http_request.user_agent).toHaveLength(256)
    expect(JSON.stringify(log.records)).not.toContain(MARK)
  })
})

async function failures(): Promise<number> {
  return (await otel.points('auth.signin.attempts'))
    .filter((point) => point.attributes['auth.outcome'] === 'failure')
    .reduce((sum, point) => sum + point.value, 0)
}
