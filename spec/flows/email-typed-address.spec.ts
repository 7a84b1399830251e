import { Browser } from '../support/browser'
import { forms } from '../support/forms'
import { newAddress, requestLink, startEmailService, stopAll, type EmailService } from '../support/email-harness'

/**
 * When the mail system fails (EmailSignin), the built-in sign-in page comes back with the e-mail
 * field as the user typed it, once; the address is never put into a URL, the NextAuth client's
 * JSON mode is answered as before, and a planted or stale cookie shows nothing.
 */

afterEach(stopAll)

/** A real mail server that answers every recipient with 421 (closing down): the send fails. */
function failingMailServer(): Promise<EmailService> {
  return startEmailService({}, {}, { refuse: () => true, refuseCode: 421 })
}

/** The browser follows redirects from `res` (each hop through its jar) and returns the last answer. */
async function follow(browser: Browser, res: Response): Promise<{ url: string; res: Response }> {
  let url = res.url
  for (let hops = 0; res.status >= 300 && res.status < 400 && hops < 5; hops++) {
    url = new URL(res.headers.get('location')!, url).href
    res = await browser.jar.fetch(url)
  }
  return { url, res }
}

/** The value of the sign-in page's e-mail field. */
function emailField(html: string): string | undefined {
  return forms(html)
    .flatMap((form) => form.inputs)
    .find((input) => input.name === 'email')?.value
}

describe('the sign-in page after EmailSignin', () => {
  it('shows the address the user typed, once, without putting it into any URL', async () => {
    const service = await failingMailServer()
    const browser = new Browser(service)
    const address = newAddress()
    const posted = await requestLink(service, browser, address)
    expect(posted.headers.get('location')).toBe(`${service.base}/error?error=EmailSignin`)
    const { url, res } = await follow(browser, posted)
    expect(url).toBe(`${service.base}/signin?error=EmailSignin`)
    expect(emailField(await res.text())).toBe(address)

    const again = await browser.jar.fetch(url)
    expect(emailField(await again.text())).toBe('')
  })

  it('escapes what was typed when it is not an address', async () => {
    const service = await failingMailServer()
    const browser = new Browser(service)
    const typed = 'x"><script>alert(1)</script>'
    const { res } = await follow(browser, await requestLink(service, browser, typed))
    const html = await res.text()
    expect(html).not.toContain('<script>alert(1)</script>')
    expect(emailField(html)).toBe(typed)
  })

  it('keeps nothing for the NextAuth client (JSON mode): its answer and the page are as before', async () => {
    const service = await failingMailServer()
    const browser = new Browser(service)
    const address = newAddress()
    const res = await requestLink(service, browser, address, { json: true })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ url: `${service.base}/error?error=EmailSignin` })
    expect(res.headers.getSetCookie().join('\n')).not.toContain(address)
    const page = await browser.jar.fetch(`${service.base}/signin?error=EmailSignin`)
    expect(emailField(await page.text())).toBe('')
  })

  it('shows an empty field for a planted cookie, and answers 200', async () => {
    const service = await failingMailServer()
    for (const value of ['x', 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAA.AAAA.AAAA', 'j:{"a":"planted"}']) {
      const res = await fetch(`${service.base}/signin?error=EmailSignin`, {
        headers: { cookie: `auth.email-typed=${encodeURIComponent(value)}` },
      })
      expect(res.status).toBe(200)
      expect(emailField(await res.text())).toBe('')
    }
  })

  it('shows an empty field once the minute has passed', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] })
    try {
      const service = await failingMailServer()
      const browser = new Browser(service)
      const posted = await requestLink(service, browser, newAddress())
      const cookie = posted.headers.getSetCookie().find((line) => line.startsWith('auth.email-typed='))!
      expect(cookie).toMatch(/; Path=\/api\/auth\/signin; HttpOnly; SameSite=Lax; Max-Age=60;/)
      jest.setSystemTime(Date.now() + 61_000)
      const res = await fetch(`${service.base}/signin?error=EmailSignin`, {
        headers: { cookie: cookie.split(';')[0]! },
      })
      expect(emailField(await res.text())).toBe('')
    } finally {
      jest.useRealTimers()
    }
  })
})
