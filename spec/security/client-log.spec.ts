import { stopAll } from '../support/email-harness'
import { addressIn, confirmLink, linkFor, SIGNED_IN, startEmailApp, type EmailApp } from '../support/email-setup'
import { captureOutput, expectNoLeaks, stringsOf, type RecordingBrowser, type Secrets } from '../support/leaks'

/**
 * POST /_log, the v4 client's log beacon, logs no secret and never above `warn`, even from a
 * signed-in browser (its session and CSRF cookies go with every beacon): each of the client's
 * levels is logged at `warn` at most, tagged `source: 'client'`, with none of the browser's
 * secrets. A level that is not one of the client's (docs/routes.md: `error`, `warn`, `debug`) is
 * refused with 400 and never reaches the log, neither as the entry's level nor anywhere in it: a
 * prototype member, a made-up level, an array, an object, a very long string.
 */

const logged = captureOutput()
let app: EmailApp
let secrets: Secrets
let browser: RecordingBrowser

/** A service with a browser signed in by e-mail; every beacon carries its cookies. */
async function signedIn(): Promise<void> {
  app = await startEmailApp(logged)
  secrets = app.secrets()
  browser = app.browser(secrets)
  await confirmLink(app, browser, secrets, await linkFor(app, browser, secrets, addressIn(secrets)))
  expect(await browser.session()).toHaveProperty('user')
}

// One service for the specs that stay under the beacon limit (refused levels cost no count).
beforeAll(signedIn)
afterAll(stopAll)

/** A beacon as the v4 client sends it (URLSearchParams), or as JSON for the values a form cannot carry. */
function beacon(fields: Record<string, unknown>, json = false): Promise<Response> {
  const init: RequestInit = json
    ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) }
    : { method: 'POST', body: new URLSearchParams(fields as Record<string, string>) }
  return browser.jar.fetch(`${app.service.base}/_log`, init)
}

const clientEntries = () => logged.ofThisTest().entries.filter((entry) => entry.event === 'client.log')

it.each([
  ['error', 'warn'],
  ['warn', 'warn'],
  ['debug', 'debug'],
])("the client's %s is logged at %s, with none of the browser's secrets", async (level, as) => {
  const fields = { level, code: 'CLIENT_FETCH_ERROR', message: 'Failed to fetch', client: 'true' }
  expect((await beacon(fields)).status).toBe(200)
  expect((await beacon(fields, true)).status).toBe(200)
  const entry = { level: as, event: 'client.log', source: 'client', code: 'CLIENT_FETCH_ERROR' }
  expect(clientEntries()).toEqual([expect.objectContaining(entry), expect.objectContaining(entry)])
  secrets.expectCollected(...SIGNED_IN)
  expectNoLeaks(logged.ofThisTest(), secrets)
})

const LONG = `warn${'x'.repeat(3000)}`

describe('a level that is not one of the client’s', () => {
  it.each<[string, unknown]>([
    ['constructor', 'constructor'],
    ['__proto__', '__proto__'],
    ['toString', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty'],
    ['fatal', 'fatal'],
    ['info (the client has none)', 'info'],
    ['an upper-case ERROR', 'ERROR'],
    ['error with a line break', 'error\n'],
    ['the empty string', ''],
    ['a very long string', LONG],
  ])('%s: refused with 400, nothing logged', async (_what, level) => {
    expect((await beacon({ level, code: 'MARKER_CODE' })).status).toBe(400)
    expect((await beacon({ level, code: 'MARKER_CODE' }, true)).status).toBe(400)
    expect(clientEntries()).toEqual([])
    expect(JSON.stringify(logged.ofThisTest())).not.toContain('MARKER_CODE')
    expectNoLeaks(logged.ofThisTest(), secrets)
  })

  it.each<[string, Record<string, unknown>]>([
    ['an array', { level: ['error'] }],
    ['an array of two', { level: ['warn', 'error'] }],
    ['an object', { level: { toString: 'error' } }],
    ['a number', { level: 1 }],
    ['null', { level: null }],
    [
      'absent, with `level` under a __proto__ key',
      JSON.parse('{"__proto__": {"level": "error"}}') as Record<string, unknown>,
    ],
  ])('%s (JSON): refused with 400, nothing logged', async (_what, fields) => {
    expect((await beacon({ ...fields, code: 'MARKER_CODE' }, true)).status).toBe(400)
    expect(clientEntries()).toEqual([])
    expect(({} as Record<string, unknown>).level).toBeUndefined()
    expect(JSON.stringify(logged.ofThisTest())).not.toContain('MARKER_CODE')
  })

  it('a repeated form field counts as its first value: `fatal` then `error` is refused', async () => {
    const body = 'level=fatal&level=error&code=MARKER_CODE'
    const headers = { 'content-type': 'application/x-www-form-urlencoded' }
    const res = await browser.jar.fetch(`${app.service.base}/_log`, { method: 'POST', headers, body })
    expect(res.status).toBe(400)
    expect(clientEntries()).toEqual([])
  })

  it('never shows up in an entry made afterwards, when the client sends a known level', async () => {
    for (const level of ['constructor', '__proto__', 'fatal', LONG]) await beacon({ level, code: 'X' })
    expect((await beacon({ level: 'error', code: 'X' })).status).toBe(200)
    const texts = clientEntries().flatMap((entry) => stringsOf(entry))
    expect(clientEntries()).toHaveLength(1)
    for (const level of ['constructor', '__proto__', 'fatal', LONG]) expect(texts).not.toContain(level)
  })
})

it('past 30 beacons a minute (429) and over 4 KB (413): nothing logged, no secret', async () => {
  await signedIn() // a service of its own, whose limit no other spec has used
  const answers: number[] = []
  for (let i = 0; i < 31; i++) answers.push((await beacon({ level: 'debug', code: `n${i}` })).status)
  expect(answers.filter((status) => status === 429)).toHaveLength(1)
  expect((await beacon({ level: 'warn', message: 'm'.repeat(5000) })).status).toBe(413)
  expect(clientEntries()).toHaveLength(30)
  expectNoLeaks(logged.ofThisTest(), secrets)
})
