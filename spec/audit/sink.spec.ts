import type { Request } from 'express'
import { auth, type AuditRecord } from '../../lib'
import { auditRecord, createAudit, MAX_PENDING, PACKAGE_VERSION } from '../../lib/core/audit'
import type { LogEntry } from '../../lib'
import { testOptions } from '../support/app'
import { Browser } from '../support/browser'
import { configError } from '../support/config-error'
import { signInByEmail, startPasskeyService, type PasskeyService } from '../support/passkey-harness'
import { auditLog } from '../support/audit'
import { NO_TELEMETRY } from '../../lib/infra/telemetry'

const NO_METRICS = { telemetry: NO_TELEMETRY, providerIds: new Set<string>() }

/**
 * The audit sink is the app's code, and the service never waits for it: a sink that throws or
 * rejects leaves every request answered as before and is logged once (`audit.failed`) until it
 * answers again; one that never answers delays no request, holds at most MAX_PENDING records
 * (the rest are dropped and counted) and leaves no unhandled rejection. `audit` must be a function.
 */

let services: PasskeyService[] = []
afterEach(async () => {
  await Promise.all(services.map((service) => service.close()))
  services = []
})

async function start(audit: (record: AuditRecord) => void | Promise<void>): Promise<PasskeyService> {
  const service = await startPasskeyService({}, { audit })
  services.push(service)
  return service
}

const tick = () => new Promise((resolve) => setImmediate(resolve))
const address = () => `audit-${Math.random().toString(36).slice(2)}@example.com`
const auditLogs = (logs: LogEntry[]) => logs.filter(({ event }) => event.startsWith('audit.'))

describe('the audit option', () => {
  const options = (audit: unknown) => {
    const { logs: _logs, ...rest } = testOptions({ audit: audit as never })
    return rest
  }

  it('must be a function: anything else is a configuration error naming it', () => {
    expect(configError(() => auth(options('siem')))).toMatch(
      /^`audit` must be a function given each audit record.*; got "siem"$/,
    )
    expect(configError(() => auth(options({ send() {} })))).toMatch(/`audit`.*an object/)
    expect(() => auth(options(() => undefined))).not.toThrow()
  })

  it('names the package version that package.json has', () => {
    expect(PACKAGE_VERSION).toBe((require('../../package.json') as { version: string }).version)
  })
})

describe('a sink that fails', () => {
  it.each([
    [
      'throws',
      () => {
        throw new Error('disk full for user@example.com')
      },
    ],
    ['rejects', () => Promise.reject(new Error('disk full for user@example.com'))],
  ])('%s: every request is answered as without it, and the log says so once', async (_name, failing) => {
    let fail = true
    let delivered = 0
    const service = await start(() => {
      if (fail) return failing()
      delivered += 1
      return undefined
    })
    const browser = new Browser(service)
    await signInByEmail(service, browser, address())
    await signInByEmail(service, new Browser(service), address())
    for (let i = 0; i < 3; i++) await tick()
    const failed = auditLogs(service.logs)
    expect(failed.map(({ level, event }) => [level, event])).toEqual([['error', 'audit.failed']])
    // Never what the sink said (it may quote a record), never a record's field.
    expect(JSON.stringify(failed)).not.toMatch(/example\.com|disk full/)
    fail = false
    await signInByEmail(service, new Browser(service), address())
    for (let i = 0; i < 3; i++) await tick()
    expect(delivered).toBeGreaterThan(0)
    expect(auditLogs(service.logs).map(({ event }) => event)).toEqual(['audit.failed', 'audit.recovered'])
  })
})

describe('a sink that never answers', () => {
  it('delays no request', async () => {
    const calls: AuditRecord[] = []
    const service = await start((record) => {
      calls.push(record)
      return new Promise<void>(() => undefined)
    })
    const started = Date.now()
    await signInByEmail(service, new Browser(service), address())
    expect(Date.now() - started).toBeLessThan(2000)
    for (let i = 0; i < 3; i++) await tick()
    expect(calls.map(({ metadata }) => metadata.event_code)).toContain('signin')
    expect(auditLogs(service.logs)).toEqual([])
  })

  it('holds at most MAX_PENDING records; the rest are dropped and counted, and nothing rejects unhandled', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const logs: Array<[string, string, string]> = []
      const answers: Array<() => void> = []
      const audit = createAudit({
        ...NO_METRICS,
        sink: () => new Promise<void>((resolve) => void answers.push(resolve)),
        log: (level, event, message) => void logs.push([level, event, message]),
        handleOf: () => null,
        handleOfSid: () => 'h',
      })
      for (let i = 0; i < MAX_PENDING + 25; i++) audit.record({ event: 'signout', userId: `u${i}` })
      for (let i = 0; i < 3; i++) await tick()
      expect(answers).toHaveLength(MAX_PENDING)
      expect(logs).toEqual([])
      for (const answer of answers) answer()
      for (let i = 0; i < 3; i++) await tick()
      expect(logs).toEqual([['warn', 'audit.dropped', '25 audit record(s) were dropped while the sink was behind']])
      // Room again once it answered.
      audit.record({ event: 'signout', userId: 'again' })
      for (let i = 0; i < 3; i++) await tick()
      expect(answers).toHaveLength(MAX_PENDING + 1)
      const throwing = createAudit({
        ...NO_METRICS,
        sink: () => {
          throw new Error('no')
        },
        log: () => {
          throw new Error('a logger that throws too')
        },
        handleOf: () => null,
        handleOfSid: () => 'h',
      })
      throwing.record({ event: 'signout', userId: 'u' })
      for (let i = 0; i < 5; i++) await tick()
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })
})

describe('the client in a record', () => {
  const request = (ip: string | undefined, userAgent: string) =>
    ({ ip, headers: { 'user-agent': userAgent } }) as unknown as Request

  it('is its address as the rate limits count it: an IPv6 client by its /64, as a valid address', () => {
    const v6 = auditRecord({ event: 'signin', userId: 'u' }, request('2001:DB8:1:2:3:4:5:6', 'ua'))
    expect(v6.src_endpoint).toEqual({ ip: '2001:db8:1:2::' })
    const mapped = auditRecord({ event: 'signin', userId: 'u' }, request('::ffff:203.0.113.7', 'ua'))
    expect(mapped.src_endpoint).toEqual({ ip: '203.0.113.7' })
    const forged = auditRecord({ event: 'signin', userId: 'u' }, request('not an ip', 'ua'))
    expect(forged.src_endpoint).toEqual({ ip: null })
  })

  it('has its user agent bounded and without control characters; without a request, neither', () => {
    const record = auditRecord({ event: 'signin', userId: 'u' }, request('127.0.0.1', `a\r\nb\u0000${'x'.repeat(400)}`))
    expect(record.http_request.user_agent).toBe(`ab${'x'.repeat(254)}`)
    const helper = auditRecord({ event: 'user.deleted', userId: 'u' })
    expect(helper).toMatchObject({ src_endpoint: { ip: null }, http_request: { user_agent: null } })
  })

  it('is the same in the stream as in listSessions: 127.0.0.1 on loopback', async () => {
    const log = auditLog()
    const service = await start(log.sink)
    await signInByEmail(service, new Browser(service), address())
    const [signIn] = await log.of('signin')
    expect(signIn).toMatchObject({
      src_endpoint: { ip: '127.0.0.1' },
      http_request: { user_agent: expect.any(String) },
    })
  })
})
