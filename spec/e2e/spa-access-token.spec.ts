import type { Browser, Locator, Page } from 'playwright-core'
import { launchChromium } from '../support/chromium'
import { sharedRedisForFile } from '../support/redis'
import { startSpa, type SpaSetup } from '../support/spa-harness'

/**
 * A React page on another origin than the auth service, in Chromium: it signs in through the
 * NextAuth client (`next-auth/react`, unchanged, its `fetch` given credentials for the service's
 * origin), gets an access token from `POST {base}/token` and calls an API on a third origin with
 * it; once the user signs out, the API refuses that token (the service's Redis says the session
 * ended) and the service issues no other. The page and the service are on one site (`localhost`,
 * ports aside): the default Lax cookies go along with the page's requests.
 */
jest.setTimeout(120_000)

const db = sharedRedisForFile('spa-access-token')
let spa: SpaSetup | undefined
let chromium: Browser | undefined

beforeAll(async () => {
  const started = await Promise.allSettled([
    startSpa({ service: db.client, api: db.redis.client(), prefix: db.prefix }),
    launchChromium(),
  ])
  if (started[0].status === 'fulfilled') spa = started[0].value
  if (started[1].status === 'fulfilled') chromium = started[1].value
  for (const result of started) if (result.status === 'rejected') throw result.reason
}, 90_000)

afterAll(async () => {
  await chromium?.close()
  await spa?.stop()
})

describe('a single-page app on another origin, in Chromium', () => {
  it('signs in with the NextAuth client, calls an API with an access token, and loses it on sign-out', async () => {
    const { service, page: pageUrl, api, idp } = spa!
    const { page, problems, expectStatus } = await openTab(chromium!)
    await page.goto(pageUrl)
    const status = page.getByTestId('status')
    const answer = page.getByTestId('api')
    await expectText(status, 'unauthenticated')

    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL((url) => url.origin === idp.issuer)
    await page.getByLabel('Username or e-mail').fill('alice')
    await page.getByLabel('Password').fill('any password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    // Back on the page (a `cors.origins` origin is a callbackUrl the service may send the user to).
    await page.waitForURL(pageUrl)
    await expectText(status, 'authenticated')
    await expectText(page.getByTestId('user'), 'Signed in as Alice Example (alice@example.com).')

    await page.getByRole('button', { name: 'Call the API', exact: true }).click()
    // The token names the user, and the page that asked for it as its client.
    await expectText(answer, `API: 200 oidc:alice from ${new URL(pageUrl).origin}`)

    await page.getByRole('button', { name: 'Sign out' }).click()
    await expectText(status, 'unauthenticated')
    expectStatus(`${api}/me`, 401)
    await page.getByRole('button', { name: 'Call the API with the old token' }).click()
    await expectText(answer, 'API: 401 invalid_token: the session ended')
    expectStatus(`${service}/token`, 401)
    await page.getByRole('button', { name: 'Call the API', exact: true }).click()
    await expectText(answer, 'token refused: 401 SessionRequired')

    expect(problems).toEqual([])
  })
})

/**
 * A page in a new context, and every uncaught script error and console error it shows (the client's
 * CLIENT_FETCH_ERROR, a CORS refusal), but a failed load of exactly a URL expected with that status.
 */
async function openTab(browser: Browser) {
  const context = await browser.newContext()
  const page: Page = await context.newPage()
  // Generous for a loaded CI machine, yet inside the test's time.
  page.setDefaultTimeout(20_000)
  const problems: string[] = []
  const expected = new Map<string, number>()
  page.on('pageerror', (error) => problems.push(`script error on ${page.url()}: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const status = /^Failed to load resource: the server responded with a status of (\d{3})\b/.exec(message.text())?.[1]
    const url = message.location().url
    if (status !== undefined && expected.get(url) === Number(status)) return
    if (status === '404' && url.endsWith('/favicon.ico')) return
    problems.push(`console error on ${page.url()}: ${message.text()} (${url})`)
  })
  return { page, problems, expectStatus: (url: string, code: number) => expected.set(url, code) }
}

/** Waits (the page's default time-out) until `locator` reads exactly `text`; a clear message otherwise. */
async function expectText(locator: Locator, text: string): Promise<void> {
  try {
    await locator.filter({ hasText: new RegExp(`^${literal(text)}$`) }).waitFor()
  } catch {
    throw new Error(`expected "${text}", the page shows "${await locator.textContent()}"`)
  }
}

const literal = (text: string) => text.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&')
