import { oidc } from '../../lib'
import { freeSite, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { findForm } from '../support/forms'
import { startIdp, type Idp } from '../support/idp'
import { auditLog, expected, type AuditLog } from '../support/audit'

/**
 * A back-channel logout in the audit stream: the provider's server posts its logout token, and
 * each user whose sessions ended gets one Logoff record, the provider's server as its client. The
 * record holds no part of the logout token.
 */

let idp: Idp
let served: Served
let log: AuditLog
const tokens: string[] = []

beforeAll(async () => {
  const site = await freeSite()
  idp = await startIdp({
    backchannelLogout: true,
    users: [{ accountId: 'alice', name: 'Alice Example', email: 'alice@example.com' }],
    clients: [
      {
        client_id: 'app',
        client_secret: 'app-secret',
        redirect_uris: [`${site.base}/callback/oidc`],
        token_endpoint_auth_method: 'client_secret_post',
        backchannel_logout_uri: `${site.base}/backchannel-logout/oidc`,
        backchannel_logout_session_required: true,
      },
    ],
  })
  log = auditLog()
  served = await serve(
    {
      providers: [oidc({ id: 'oidc', issuer: idp.issuer, clientId: 'app', clientSecret: 'app-secret' })],
      audit: log.sink,
    },
    {
      site,
      // The logout token as it arrives, for the scan (before the service reads the body).
      setup: (app) =>
        app.use('/api/auth/backchannel-logout', (req, _res, next) => {
          const chunks: Buffer[] = []
          req.on('data', (chunk: Buffer) => chunks.push(chunk))
          req.on('end', () => tokens.push(Buffer.concat(chunks).toString()))
          next()
        }),
    },
  )
})

afterAll(async () => {
  await served.close()
  await idp.stop()
})

describe('a back-channel logout', () => {
  it('is one Logoff record per user, from the provider', async () => {
    const alice = new Browser(served)
    expect((await alice.signIn('oidc')).status).toBe(302)
    const userId = 'oidc:alice'
    const page = await alice.jar.fetch(`${idp.issuer}/session/end`, {}, { crossSite: true })
    const form = findForm(await page.text(), { id: 'op.logoutForm' })!
    await alice.jar.fetch(new URL(form.action, idp.issuer), {
      method: 'POST',
      body: new URLSearchParams({ ...form.fields, logout: 'yes' }),
    })
    expect(await alice.session()).toEqual({})
    const records = await log.of('logout.backchannel')
    expect(records).toMatchObject([
      expected({ class_uid: 3002, activity_id: 2, activity_name: 'Logoff', userId, provider: 'oidc', handle: null }),
    ])
    expect(records[0]!.src_endpoint.ip).toBe('127.0.0.1')
    const json = JSON.stringify(log.records)
    const token = new URLSearchParams(tokens.at(-1) ?? '').get('logout_token') ?? ''
    expect(token.length).toBeGreaterThan(50)
    for (const part of token.split('.')) expect(json).not.toContain(part)
  })
})
