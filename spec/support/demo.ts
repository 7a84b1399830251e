/**
 * What the demo's specs (spec/demo/) share: the sign-in link its development mail transport
 * prints, waiting for its output, and opening a link as the person who got it does.
 */
import type { CookieJar } from './cookie-jar'
import { forms } from './forms'

/** `text` as a regular expression that matches it and nothing else. */
export const literal = (text: string) => text.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&')

/** The whole line the demo's development mail transport prints for `address`; the link is its group 1. */
export const printedLink = (address: string) =>
  new RegExp(
    `^demo \\(development mail transport, nothing was sent\\): sign-in link for ${literal(address)}: (\\S+)\n`,
    'm',
  )

/** Polls until `find` has an answer (the demo's output arrives through a pipe). */
export async function eventually<T>(find: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Opens the link from the mail (a top-level navigation from another site), then presses the
 * confirm page's button: the service's last answer.
 */
export async function openLink(jar: CookieJar, link: string, address: string): Promise<Response> {
  const page = await jar.fetch(link, {}, { crossSite: true })
  expect(page.status).toBe(200)
  const html = await page.text()
  expect(html).toContain(`Continue signing in as ${address}`)
  const [confirm] = forms(html)
  expect(confirm).toMatchObject({ method: 'post', action: link.slice(0, link.indexOf('?')), buttons: ['Sign in'] })
  return jar.fetch(confirm!.action, { method: 'POST', body: new URLSearchParams(confirm!.fields) })
}
