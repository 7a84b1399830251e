import { revokeGrants } from '../support/idp'
import { startTokenApp, type TokenApp } from '../support/token-harness'
import { auditLog, expected, type AuditLog } from '../support/audit'

/**
 * A refresh the provider refused for good (the grant revoked at the IdP) is a Failure record of
 * the audit stream, RefreshAccessTokenError; a refresh that succeeds is none. No record holds a
 * token.
 */
jest.setTimeout(60_000)

let t: TokenApp
let log: AuditLog

beforeAll(async () => {
  log = auditLog()
  t = await startTokenApp({ audit: log.sink })
})

afterAll(async () => {
  await t?.stop()
})

it('a refresh refused for good: one Failure record naming the user and the provider', async () => {
  const browser = await t.signedIn()
  const fresh = await t.token(browser)
  expect(fresh.status).toBe(200)
  expect(await log.of('tokens.refresh_refused')).toEqual([])
  await revokeGrants(t.idp)
  await t.token(browser, '?force=1')
  expect(await t.token(browser, '?force=1')).toMatchObject({ body: { error: 'RefreshAccessTokenError' } })
  const records = await log.of('tokens.refresh_refused')
  expect(records).toMatchObject([
    expected({
      class_uid: 3002,
      activity_id: 99,
      activity_name: 'Token Refresh',
      status: 'Failure',
      detail: 'RefreshAccessTokenError',
      userId: 'idp:alice',
      provider: 'idp',
      handle: null,
      ip: null,
    }),
  ])
  expect(JSON.stringify(log.records)).not.toContain(fresh.body.accessToken!)
})
