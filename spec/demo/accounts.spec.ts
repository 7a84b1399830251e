import { Browser } from '../support/browser'
import { eventually, openLink, printedLink } from '../support/demo'
import { forms, type Form } from '../support/forms'
import { postgresForFile } from '../support/postgres'
import { startDemo, type Demo } from '../support/demo-process'

/**
 * The demo's accounts over HTTP, with its embedded identity provider: the home page lists the
 * signed-in user's ways in; each "Link another" form posts that provider's sign-in with
 * `link=true`, and what comes back is linked to the same user; each "Unlink" posts `{base}/unlink`
 * and that way in is gone; the last one is refused, on the service's page saying why. An e-mail
 * sign-in with the address Alice's provider verified takes the confirm path. With DATABASE_URL the
 * accounts are rows of PostgreSQL.
 */

/** The home page as this browser sees it: the ways in listed (their text), and its forms. */
async function home(browser: Browser, { origin }: Demo): Promise<{ ways: string[]; forms: Form[] }> {
  const page = await browser.jar.fetch(`${origin}/`)
  expect(page.status).toBe(200)
  const html = await page.text()
  const ways = [...html.matchAll(/<li class="way-in"><strong>([^<]*)<\/strong>([^<]*)/g)].map(
    ([, provider, label]) => `${provider}${label}`,
  )
  return { ways, forms: forms(html) }
}

/** The home page's form with this button. */
function formOf(page: { forms: Form[] }, button: string): Form {
  const found = page.forms.filter((form) => form.buttons.includes(button))
  expect(found).toHaveLength(1)
  return found[0]!
}

/** The browser submits `form` of a page of `demo`, with `extra` typed into it. */
const post = (demo: Demo, browser: Browser, form: Form, extra: Record<string, string> = {}) =>
  browser.jar.fetch(new URL(form.action, demo.origin), {
    method: 'POST',
    body: new URLSearchParams({ ...form.fields, ...extra }),
  })

describe("the demo's accounts, in its memory", () => {
  let demo: Demo
  beforeAll(async () => {
    demo = await startDemo()
  }, 40_000)
  afterAll(() => demo?.process.stop())

  it('says at start that they live in its memory, as the package warns', async () => {
    expect(demo.process.output()).toContain(
      "demo: neither DATABASE_URL nor REDIS_URL is set; accounts live in this process's memory and end when the demo stops\n",
    )
    // The package's warning goes to stderr, which may reach us after stdout's "listening".
    const warning = "accounts are kept in this process's memory (memoryAccounts())"
    for (let waited = 0; waited < 5000 && !demo.process.output().includes(warning); waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(demo.process.output()).toContain(warning)
  })

  it('lists the ways in; "Link another" links e-mail and Demo to the same user, "Unlink" removes them, never the last', async () => {
    const { origin, base } = demo
    const browser = new Browser({ origin, base })
    await browser.signIn('oidc', { callbackUrl: '/' })
    let page = await home(browser, demo)
    expect(page.ways).toEqual(['Demo: alice@example.com'])
    // One "Unlink" per way in; "Link Email" for the provider not linked (a passkey has "Add a passkey").
    const unlinkDemo = formOf(page, 'Unlink')
    expect(unlinkDemo).toMatchObject({ method: 'post', action: '/api/auth/unlink' })
    expect(unlinkDemo.hidden).toEqual({
      csrfToken: await browser.csrfToken(),
      callbackUrl: '/',
      accountId: expect.any(String),
    })
    const linkEmail = formOf(page, 'Link Email')
    expect(linkEmail).toMatchObject({ method: 'post', action: '/api/auth/signin/email' })
    expect(linkEmail.hidden).toEqual({ csrfToken: await browser.csrfToken(), callbackUrl: '/', link: 'true' })
    expect(linkEmail.inputs.find(({ name }) => name === 'email')).toMatchObject({ type: 'email', value: '' })
    expect(page.forms.some((form) => form.buttons.includes('Link Demo'))).toBe(false)

    // Link Email: the link printed for the address, opened in this browser, adds it to this user.
    const sent = await post(demo, browser, linkEmail, { email: 'alice.mail@example.com' })
    expect(sent.headers.get('location')).toBe(`${base}/verify-request?provider=email&type=email`)
    const link = await eventually(
      () => printedLink('alice.mail@example.com').exec(demo.process.output())?.[1],
      'sign-in link on the console',
    )
    expect((await openLink(browser.jar, link, 'alice.mail@example.com')).headers.get('location')).toBe(`${origin}/`)
    page = await home(browser, demo)
    expect(page.ways).toEqual(['Demo: alice@example.com', 'Email: alice.mail@example.com'])
    // The sign-in that linked it renewed the CSRF token: the page's new forms carry the new one.
    const unlinks = page.forms.filter((form) => form.buttons.includes('Unlink'))
    expect(unlinks.map((form) => form.hidden.accountId)).toEqual([unlinkDemo.hidden.accountId, expect.any(String)])
    expect(page.forms.some((form) => form.buttons.some((button) => button.startsWith('Link ')))).toBe(false)

    // Unlink Demo: back home, e-mail is the one way in left, and "Link Demo" is offered.
    const unlinked = await post(demo, browser, unlinks[0]!)
    expect([unlinked.status, unlinked.headers.get('location')]).toEqual([302, `${origin}/`])
    page = await home(browser, demo)
    expect(page.ways).toEqual(['Email: alice.mail@example.com'])

    // Link Demo: the sign-in at the identity provider, and back to the same user.
    const started = await post(demo, browser, formOf(page, 'Link Demo'))
    expect(started.status).toBe(302)
    const callback = await browser.login(new URL(started.headers.get('location')!))
    expect((await browser.returnTo(callback)).headers.get('location')).toBe(`${origin}/`)
    page = await home(browser, demo)
    expect(page.ways).toEqual(['Email: alice.mail@example.com', 'Demo: alice@example.com'])

    // Unlink both: the first goes, the last is refused with the page that says why.
    const [unlinkEmail] = page.forms.filter((form) => form.buttons.includes('Unlink'))
    await post(demo, browser, unlinkEmail!)
    page = await home(browser, demo)
    expect(page.ways).toEqual(['Demo: alice@example.com'])
    const refused = await post(demo, browser, formOf(page, 'Unlink'))
    expect(refused.headers.get('location')).toBe(`${base}/error?error=LastSignInMethod`)
    const explained = await browser.jar.fetch(refused.headers.get('location')!)
    expect(explained.status).toBe(409)
    expect(await explained.text()).toContain('This is the only way left to sign in to your account.')
    expect((await home(browser, demo)).ways).toEqual(['Demo: alice@example.com'])
  })

  it("takes the confirm path: an e-mail sign-in with Alice's verified address is linked once Alice signs in with Demo", async () => {
    const { origin, base } = demo
    const browser = new Browser({ origin, base })
    await browser.signIn('oidc', { callbackUrl: '/' })
    await browser.signOut()
    const sent = await browser.jar.fetch(`${base}/signin/email`, {
      method: 'POST',
      body: new URLSearchParams({ csrfToken: await browser.csrfToken(), callbackUrl: '/', email: 'alice@example.com' }),
    })
    expect(sent.headers.get('location')).toBe(`${base}/verify-request?provider=email&type=email`)
    const link = await eventually(
      () => printedLink('alice@example.com').exec(demo.process.output())?.[1],
      'sign-in link on the console',
    )
    const waiting = await openLink(browser.jar, link, 'alice@example.com')
    expect(waiting.headers.get('location')).toBe(`${base}/error?error=OAuthAccountNotLinked`)
    expect(await browser.session()).toEqual({})
    await browser.signIn('oidc', { callbackUrl: '/' })
    expect((await home(browser, demo)).ways).toEqual(['Demo: alice@example.com', 'Email: alice@example.com'])
  })
})

describe('the demo with DATABASE_URL', () => {
  // The machine's PostgreSQL, in a schema of this file's own (its search_path in the URL's options).
  const postgres = postgresForFile('demo accounts')
  let demo: Demo
  beforeAll(async () => {
    const url = new URL(process.env.POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test')
    url.searchParams.set('options', `-c search_path=${postgres.schema}`)
    demo = await startDemo({ DATABASE_URL: url.href })
  }, 40_000)
  afterAll(() => demo?.process.stop())

  it('keeps them there: its tables made at start, a sign-up a row, and the home page lists it', async () => {
    expect(demo.process.output()).toMatch(
      /^demo: accounts are kept in PostgreSQL at postgres:\/\/127\.0\.0\.1:5432\/test\n/m,
    )
    expect(demo.process.output()).not.toMatch(/accounts (?:are kept|live) in this process's memory/)
    const browser = new Browser(demo)
    await browser.signIn('oidc', { callbackUrl: '/' })
    expect((await home(browser, demo)).ways).toEqual(['Demo: alice@example.com'])
    const { rows } = await postgres.admin.query(
      `SELECT u.name, a.provider, a.subject FROM "${postgres.schema}".auth_users u JOIN "${postgres.schema}".auth_accounts a ON a.user_id = u.id`,
    )
    expect(rows).toEqual([{ name: 'Alice Example', provider: 'oidc', subject: 'alice' }])
  })
})
