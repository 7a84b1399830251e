import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Response } from 'express'
import { renderErrorPage, renderPage, sendStylesheet } from '../../lib/infra/http/page-response'
import type { ProviderLink, SigninData } from '../../lib/infra/pages/render'
import { fakeResponse, type Sent } from '../support/fake-response'
import { decodeEntities, forms } from '../support/forms'

const BASE = 'http://localhost:3000/api/auth'
const ORIGIN = 'http://localhost:3000'
const HOSTILE = '"><script>alert(1)</script>'
const GITHUB: ProviderLink = { id: 'github', name: 'GitHub', type: 'oauth', signinUrl: `${BASE}/signin/github` }
const EMAIL: ProviderLink = { id: 'email', name: 'Email', type: 'email', signinUrl: `${BASE}/signin/email` }
const SIGNIN: SigninData = {
  base: BASE,
  csrfToken: 'csrf-1',
  callbackUrl: `${ORIGIN}/home`,
  providers: [GITHUB, EMAIL],
}

function page(render: (res: Response) => void): Sent {
  const { res, sent } = fakeResponse()
  render(res)
  return sent
}

function expectHtmlPage(sent: Sent, status: number, noStore: boolean) {
  expect(sent.status).toBe(status)
  expect(sent.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(sent.headers['cache-control']).toBe(noStore ? 'private, no-cache, no-store' : undefined)
  expect(sent.body).toMatch(/^<!doctype html>\n<html lang="en">/)
  expect(sent.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">')
}

/** Ready for a strict CSP and self-contained: no script, no inline style, no foreign URL. */
function expectStrictCspReady(html: string, allowedUrls: string[] = []) {
  expect(html).not.toMatch(/<script/i)
  expect(html).not.toMatch(/<style/i)
  expect(html).not.toMatch(/\sstyle=/i)
  expect(html).not.toMatch(/\son\w+=/i)
  for (const [url] of html.matchAll(/https?:\/\/[^"'<\s]*/g)) {
    expect([BASE, ORIGIN, ...allowedUrls].some((allowed) => decodeEntities(url).startsWith(allowed))).toBe(true)
  }
}

describe('the sign-in page', () => {
  it('has one form per OAuth provider and an e-mail form, each with the CSRF token and callbackUrl', () => {
    const sent = page((res) => renderPage(res, 200, 'signin', SIGNIN))
    expectHtmlPage(sent, 200, true)
    const [github, email, ...rest] = forms(sent.body)
    expect(rest).toEqual([])
    expect(github).toMatchObject({
      method: 'post',
      action: GITHUB.signinUrl,
      hidden: { csrfToken: 'csrf-1', callbackUrl: SIGNIN.callbackUrl },
      buttons: ['Sign in with GitHub'],
    })
    expect(email).toMatchObject({
      method: 'post',
      action: EMAIL.signinUrl,
      hidden: { csrfToken: 'csrf-1', callbackUrl: SIGNIN.callbackUrl },
      buttons: ['Sign in with Email'],
    })
    expect(email?.html).toContain('<label for="email">Email address</label>')
    expect(email?.html).toContain('<input id="email" name="email" type="email" required autocomplete="email" value="">')
    expect(sent.body).toContain(`<link rel="stylesheet" href="${BASE}/assets/style.css">`)
    expect(sent.body).not.toContain('role="alert"')
    expectStrictCspReady(sent.body)
  })

  it('has the e-mail form only when an e-mail provider is configured', () => {
    const oauthOnly = page((res) => renderPage(res, 200, 'signin', { ...SIGNIN, providers: [GITHUB] }))
    expect(oauthOnly.body).not.toContain('name="email"')
    const emailOnly = page((res) =>
      renderPage(res, 200, 'signin', { ...SIGNIN, providers: [EMAIL], email: 'a@example.com' }),
    )
    expect(forms(emailOnly.body).map((f) => [f.method, f.action])).toEqual([['post', EMAIL.signinUrl]])
    expect(emailOnly.body).toContain('value="a@example.com"')
    expect(emailOnly.body).not.toContain('class="divider"')
  })

  it.each([
    ['OAuthAccountNotLinked', 'To confirm your identity, sign in with the same account you used originally.'],
    ['MissingCSRF', 'The sign-in form expired. Please try again.'],
    ['EmailSignin', 'The email could not be sent. Please try again.'],
    ['NoSuchCode', 'Unable to sign in.'],
    [HOSTILE, 'Unable to sign in.'],
    ['constructor', 'Unable to sign in.'],
    ['__proto__', 'Unable to sign in.'],
  ])('shows the message for error=%s in an alert, never the raw value', (code, message) => {
    const sent = page((res) => renderPage(res, 200, 'signin', { ...SIGNIN, error: code }))
    expect(sent.body).toContain(`<div class="alert" role="alert"><p>${message}</p></div>`)
    expect(sent.body).not.toContain(code.slice(0, 10))
  })

  it('escapes every value and keeps hostile ones intact as form values only', () => {
    const hostile: SigninData = {
      ...SIGNIN,
      csrfToken: HOSTILE,
      callbackUrl: 'javascript:alert(1)',
      email: HOSTILE,
      providers: [{ ...GITHUB, name: HOSTILE }, EMAIL],
    }
    const sent = page((res) => renderPage(res, 200, 'signin', hostile))
    expectStrictCspReady(sent.body)
    expect(sent.body).toContain('&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(sent.body).not.toMatch(/(href|action)="javascript:/)
    for (const form of forms(sent.body))
      expect(form.hidden).toEqual({ csrfToken: HOSTILE, callbackUrl: 'javascript:alert(1)' })
    expect(forms(sent.body)[0]?.buttons).toEqual([`Sign in with ${HOSTILE}`])
  })

  it('may be sent cacheable when the caller says so', () => {
    expectHtmlPage(
      page((res) => renderPage(res, 200, 'signin', SIGNIN, { noStore: false })),
      200,
      false,
    )
  })
})

describe('the sign-out page', () => {
  it('asks and posts the CSRF token and callbackUrl to {base}/signout', () => {
    const sent = page((res) =>
      renderPage(res, 200, 'signout', { base: BASE, csrfToken: HOSTILE, callbackUrl: 'javascript:x' }),
    )
    expectHtmlPage(sent, 200, true)
    expect(sent.body).toContain('<p>Are you sure you want to sign out?</p>')
    expect(forms(sent.body)).toMatchObject([
      {
        method: 'post',
        action: `${BASE}/signout`,
        hidden: { csrfToken: HOSTILE, callbackUrl: 'javascript:x' },
        buttons: ['Sign out'],
      },
    ])
    expectStrictCspReady(sent.body)
  })
})

describe('the error page', () => {
  it.each([
    ['Configuration', 500, 'Server error', 'There is a problem with the server configuration.', 'Back to sign in'],
    ['AccessDenied', 403, 'Access denied', 'You do not have permission to sign in.', 'Back to sign in'],
    ['Verification', 403, 'Unable to sign in', 'The sign-in link is no longer valid.', 'Sign in'],
    ['NotFound', 404, 'Page not found', 'There is no page at this address.', 'Back to sign in'],
    ['PayloadTooLarge', 413, 'Request too large', 'The information sent was too large.', 'Back to sign in'],
    ['Default', 200, 'Error', 'Something went wrong. Please try again.', 'Back to sign in'],
  ])('explains %s (status %i) and links to the sign-in page', (code, status, heading, message, link) => {
    const sent = page((res) => renderErrorPage(res, status, code, BASE))
    expectHtmlPage(sent, status, false)
    expect(sent.body).toContain(`<title>${heading}</title>`)
    expect(sent.body).toContain(`<h1>${heading}</h1>\n<p>${message}`)
    expect(sent.body).toContain(`<a class="button" href="${BASE}/signin">${link}</a>`)
    expectStrictCspReady(sent.body)
  })

  it('shows the default texts for an unknown code and never echoes it', () => {
    for (const code of [HOSTILE, 'toString', 'hasOwnProperty']) {
      const sent = page((res) => renderPage(res, 200, 'error', { base: BASE, code }))
      expect(sent.body).toContain('<h1>Error</h1>\n<p>Something went wrong. Please try again.</p>')
      expect(sent.body).not.toContain(code.slice(0, 8))
    }
  })

  it('works without the service URL: no stylesheet, no sign-in link', () => {
    const sent = page((res) => renderErrorPage(res, 500, 'Configuration'))
    expectHtmlPage(sent, 500, false)
    expect(sent.body).toContain('<h1>Server error</h1>')
    expect(sent.body).not.toMatch(/<link|<a /)
  })
})

describe('the check-your-email page', () => {
  it('says a link was sent and links to the site', () => {
    const sent = page((res) => renderPage(res, 200, 'verify-request', { base: BASE }))
    expectHtmlPage(sent, 200, false)
    expect(sent.body).toContain('<h1>Check your email</h1>\n<p>A sign-in link has been sent to your email address.</p>')
    expect(sent.body).toContain(`<a href="${ORIGIN}">Go to localhost:3000</a>`)
    expectStrictCspReady(sent.body)
  })
})

describe('the e-mail link confirm page', () => {
  it('posts token, email, callbackUrl and CSRF token, escaped, and is never cached', () => {
    const data = {
      base: BASE,
      action: `${BASE}/callback/email`,
      token: 'tok"<',
      email: `x${HOSTILE}@example.com`,
      callbackUrl: 'javascript:1',
      csrfToken: 'c',
    }
    const sent = page((res) => renderPage(res, 200, 'email-confirm', data))
    expectHtmlPage(sent, 200, true)
    expect(sent.body).toContain('Continue signing in as x&#34;&gt;&lt;script&gt;')
    expect(forms(sent.body)).toMatchObject([
      {
        method: 'post',
        action: data.action,
        buttons: ['Sign in'],
        hidden: { token: data.token, email: data.email, callbackUrl: data.callbackUrl, csrfToken: 'c' },
      },
    ])
    expectStrictCspReady(sent.body)
  })
})

describe('the views', () => {
  const dir = path.join(__dirname, '../../views')
  it("output no value unescaped but the layout's body and the QR code the server drew", () => {
    const raw = readdirSync(dir)
      .filter((f) => f.endsWith('.ejs'))
      .flatMap((f) => [...readFileSync(path.join(dir, f), 'utf8').matchAll(/<%-[^%]*%>/g)].map(([m]) => `${f}: ${m}`))
    expect(raw).toEqual(['layout.ejs: <%- body %>', 'mfa-setup.ejs: <%- qrSvg %>'])
  })

  it('are compiled once, when the module loads, not per render', () => {
    jest.isolateModules(() => {
      const compile = jest.spyOn(require('ejs') as typeof import('ejs'), 'compile')
      const render = require('../../lib/infra/pages/render') as typeof import('../../lib/infra/pages/render')
      // The layout and the fourteen pages (the mails are email.ts's).
      expect(compile).toHaveBeenCalledTimes(15)
      for (let i = 0; i < 3; i++) {
        render.renderView('signin', SIGNIN)
        render.renderView('error', { code: 'NotFound', base: BASE })
        render.renderView('password-sent', { base: BASE, kind: 'reset' })
      }
      expect(compile).toHaveBeenCalledTimes(15)
      compile.mockRestore()
    })
  })
})

describe('the stylesheet', () => {
  it('is served as CSS, cacheable for a day, with a strong ETag', () => {
    const { res, sent } = fakeResponse()
    sendStylesheet(res)
    expect(sent).toMatchObject({
      status: 200,
      headers: { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=86400' },
    })
    expect(sent.headers['etag']).toMatch(/^"[\w-]+"$/)
    expect(sent.body).toBe(readFileSync(path.join(__dirname, '../../views/style.css'), 'utf8'))
    expect(sent.body).toContain(':focus-visible')
  })

  it('answers 304 without a body when the browser has it', () => {
    const etag = page((res) => sendStylesheet(res)).headers['etag'] as string
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const { res, sent } = fakeResponse({ 'if-none-match': header })
      sendStylesheet(res)
      expect(sent).toMatchObject({ status: 304, body: '', headers: { etag } })
    }
    const { res, sent } = fakeResponse({ 'if-none-match': '"other"' })
    sendStylesheet(res)
    expect(sent.status).toBe(200)
  })
})
