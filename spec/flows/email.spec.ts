import { createTransport } from 'nodemailer'
import { email, type LogEntry, type SignInCallbackParams, type SignInResult, type VerificationRequest } from '../../lib'
import { serve } from '../support/app'
import { Browser } from '../support/browser'
import { restoreClock, setClock, useClock } from '../support/clock'
import { decodeEntities, forms } from '../support/forms'
import { deadSmtpUrl, linkInText, startSilentSmtp, withoutSignInLinks } from '../support/smtp'
import {
  FROM,
  confirm,
  confirmForm,
  errorUrl,
  later,
  localPart,
  mailedLink,
  newAddress,
  openLink,
  outcome,
  refused,
  requestLink,
  setsSession,
  signedInTo,
  startEmailService,
  stopAll,
  useLink,
  verifyRequestUrl,
  withParams,
  type EmailOptions,
} from '../support/email-harness'

/**
 * Sign-in with a link sent by e-mail, over the wire: the service on localhost sends through
 * nodemailer over SMTP to a real mail server on 127.0.0.1, a browser-like jar asks for the link,
 * opens it (a cross-site GET, as from a webmail) and presses the confirm page's button. Every
 * refusal is asserted as the user sees it (where the browser is sent, no session, no mail), beside
 * a control where the same link or request goes through.
 */

afterEach(async () => {
  restoreClock()
  await stopAll()
})

const NO_STORE = 'private, no-cache, no-store'

describe('e-mail sign-in', () => {
  it('is offered: /providers lists it, the sign-in page has its form', async () => {
    const service = await startEmailService()
    const providers = await (await fetch(`${service.base}/providers`)).json()
    expect(providers).toEqual({
      email: {
        id: 'email',
        name: 'Email',
        type: 'email',
        signinUrl: `${service.base}/signin/email`,
        callbackUrl: `${service.base}/callback/email`,
      },
    })
    const page = await (await fetch(`${service.base}/signin`)).text()
    const form = forms(page).find((f) => new URL(f.action, service.base).href === `${service.base}/signin/email`)
    expect(form?.method).toBe('post')
    expect(Object.keys(form?.fields ?? {})).toEqual(expect.arrayContaining(['email', 'csrfToken', 'callbackUrl']))
  })

  it('signs in: the request, the mail to that mailbox, the confirm page (nobody signed in yet), its button', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const address = newAddress()

    const asked = await requestLink(service, browser, address)
    expect(outcome(asked)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })

    const mail = await service.smtp.nextMessage()
    expect(mail.envelope).toEqual({ from: FROM, to: [address] })
    expect(mail.to).toEqual([address])
    expect(mail.subject).toBe(`Sign in to localhost:${service.port}`)
    expect(mail.contentTypes).toEqual(expect.arrayContaining(['text/plain', 'text/html']))
    const link = linkInText(mail.text, service.base)
    expect(link.origin + link.pathname).toBe(`${service.base}/callback/email`)
    expect(link.searchParams.get('email')).toBe(address)
    expect(link.searchParams.get('token')).toMatch(/^[\w-]{43,}$/)
    expect(link.searchParams.get('callbackUrl')).not.toBeNull()
    expectAddressOnlyInLinkAndTo(mail, service.base, address)

    const page = await openLink(service, browser, link)
    expect(page.res.status).toBe(200)
    expect(page.res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.res.headers.get('cache-control')).toBe(NO_STORE)
    expect(setsSession(page.res)).toBe(false)
    expect(confirmForm(page).hidden).toMatchObject({
      token: link.searchParams.get('token'),
      email: address,
      callbackUrl: link.searchParams.get('callbackUrl'),
      csrfToken: expect.stringMatching(/.+/),
    })
    expect(await browser.session()).toEqual({})

    const done = await confirm(service, browser, confirmForm(page).fields)
    expect(outcome(done)).toEqual(signedInTo(`${service.origin}/welcome`))
    expect(done.headers.get('cache-control')).toBe(NO_STORE)
    expect(browser.cookie('auth.session-token')).toMatchObject({ httpOnly: true })
    expect(await browser.session()).toEqual({
      user: { email: address, name: null, image: null },
      expires: expect.any(String),
    })
  })

  it('works when the link is opened in another browser: its confirm page sets the CSRF cookie there', async () => {
    const service = await startEmailService()
    const asker = new Browser(service)
    const address = newAddress()
    const link = await mailedLink(service, asker, address)

    const other = new Browser(service)
    const page = await openLink(service, other, link)
    expect(other.cookie('auth.csrf-token')).toBeDefined()
    expect(outcome(await confirm(service, other, confirmForm(page).fields))).toEqual(
      signedInTo(`${service.origin}/welcome`),
    )
    expect(await other.session()).toMatchObject({ user: { email: address } })
    expect(await asker.session()).toEqual({})
  })

  it('a GET alone (a mail scanner opening every link) signs nobody in and spends nothing', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const link = await mailedLink(service, browser, newAddress())

    const scanner = new Browser(service)
    for (const crossSite of [true, false]) {
      const res = await scanner.jar.fetch(link, {}, { crossSite })
      expect(res.status).toBe(200)
      expect(setsSession(res)).toBe(false)
    }
    expect(await scanner.session()).toEqual({})
    expect(await browser.session()).toEqual({})

    expect(outcome(await useLink(service, browser, link))).toEqual(signedInTo(`${service.origin}/welcome`))
  })

  it('a link works once: spent, it ends on Verification (a 403 page) in any browser', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const link = await mailedLink(service, browser, newAddress())
    const form = confirmForm(await openLink(service, browser, link))
    expect(outcome(await confirm(service, browser, form.fields))).toEqual(signedInTo(`${service.origin}/welcome`))

    // Signing in renewed the CSRF token: the confirm page, opened again, carries the new one.
    expect(outcome(await useLink(service, browser, link))).toEqual(refused(service))
    const other = new Browser(service)
    expect(outcome(await useLink(service, other, link))).toEqual(refused(service))
    expect(await other.session()).toEqual({})
    expect((await other.jar.fetch(errorUrl(service, 'Verification'))).status).toBe(403)
  })

  it('a link lives maxAge seconds (default 600): after that, Verification', async () => {
    const start = Math.floor(Date.now() / 1000)
    useClock(start)
    const service = await startEmailService()
    const [early, late] = [new Browser(service), new Browser(service)]
    const lateForm = confirmForm(await openLink(service, late, await mailedLink(service, late, newAddress())))
    const earlyForm = confirmForm(await openLink(service, early, await mailedLink(service, early, newAddress())))

    setClock(start + 590)
    expect(outcome(await confirm(service, early, earlyForm.fields))).toEqual(signedInTo(`${service.origin}/welcome`))
    setClock(start + 610)
    expect(outcome(await confirm(service, late, lateForm.fields))).toEqual(refused(service))
    expect(await late.session()).toEqual({})
  })

  it('a link is for its address only: with another address, Verification, and the real link still works', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const address = newAddress()
    const link = await mailedLink(service, browser, address)

    for (const other of [newAddress(), newAddress('evil.example'), `${localPart(address)}@evil.example`]) {
      expect(outcome(await useLink(service, browser, withParams(link, { email: other })))).toEqual(refused(service))
    }
    expect(await browser.session()).toEqual({})
    expect(outcome(await useLink(service, browser, link))).toEqual(signedInTo(`${service.origin}/welcome`))
    expect(await browser.session()).toMatchObject({ user: { email: address } })
  })

  it('a tampered, cut or missing token ends on Verification; the real link still works', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const link = await mailedLink(service, browser, newAddress())
    const token = link.searchParams.get('token')!
    const flipped = (token.startsWith('A') ? 'B' : 'A') + token.slice(1)

    for (const bad of [flipped, token.slice(0, -1), `${token}A`]) {
      expect(outcome(await useLink(service, browser, withParams(link, { token: bad })))).toEqual(refused(service))
    }
    // A link without a token is refused at once: there is nothing to confirm.
    for (const bad of ['', null]) {
      expect(outcome((await openLink(service, browser, withParams(link, { token: bad }))).res)).toEqual(
        refused(service),
      )
    }
    expect(outcome(await useLink(service, browser, link))).toEqual(signedInTo(`${service.origin}/welcome`))
  })

  it('a POST without a valid CSRF token spends nothing and goes back to the confirm page', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const link = await mailedLink(service, browser, newAddress())
    const { csrfToken, ...fields } = confirmForm(await openLink(service, browser, link)).fields

    for (const attempt of [fields, { ...fields, csrfToken: `${csrfToken}x` }, { ...fields, csrfToken: '' }]) {
      const res = await confirm(service, browser, attempt)
      expect(res.status).toBe(302)
      expect(setsSession(res)).toBe(false)
      expectSameLink(new URL(res.headers.get('location')!, service.base), link)
    }
    // The right token, but from a browser without the CSRF cookie: a page elsewhere posting the form.
    const elsewhere = new Browser(service)
    const res = await confirm(service, elsewhere, { ...fields, csrfToken: csrfToken! })
    expect(res.status).toBe(302)
    expect(setsSession(res)).toBe(false)
    expectSameLink(new URL(res.headers.get('location')!, service.base), link)

    expect(await browser.session()).toEqual({})
    expect(outcome(await confirm(service, browser, { ...fields, csrfToken: csrfToken! }))).toEqual(
      signedInTo(`${service.origin}/welcome`),
    )
  })

  it('the callbackUrl is validated: an off-site one ends on the origin', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const link = await mailedLink(service, browser, newAddress(), { callbackUrl: 'https://evil.example/phish' })
    expect(outcome(await useLink(service, browser, link))).toEqual(signedInTo(`${service.origin}/`))

    const second = await mailedLink(service, browser, newAddress(), { callbackUrl: '/welcome' })
    const res = await useLink(service, browser, withParams(second, { callbackUrl: 'https://evil.example/phish' }))
    expect(new URL(res.headers.get('location')!).origin).toBe(service.origin)
  })

  it("sendVerificationRequest is given the address, the link, the host and the link's end: now + maxAge", async () => {
    const start = Math.floor(Date.now() / 1000)
    useClock(start)
    const requests: VerificationRequest[] = []
    const service = await serve({
      providers: [
        email({ from: FROM, maxAge: 900, sendVerificationRequest: (request) => void requests.push(request) }),
      ],
    })
    later(() => service.close())
    const browser = new Browser(service)
    const address = newAddress()
    expect(outcome(await requestLink(service, browser, address))).toEqual({
      status: 302,
      location: verifyRequestUrl(service),
      session: false,
    })
    expect(requests).toEqual([
      { identifier: address, url: expect.any(String), host: `localhost:${service.port}`, expires: expect.any(Date) },
    ])
    expect(requests[0]!.expires.toISOString()).toBe(new Date((start + 900) * 1000).toISOString())
    expect(outcome(await useLink(service, browser, requests[0]!.url))).toEqual(signedInTo(`${service.origin}/welcome`))
  })

  it('a link value of its maximum length counts (token 128, address 254, callbackUrl 2048); one more, absent', async () => {
    // Sent by a transport that keeps the text: the test mail server takes addresses of 253 characters at most.
    const texts: string[] = []
    const transport = {
      sendMail: (message: { text: string }) => Promise.resolve(void texts.push(message.text)),
    }
    const service = await serve({ providers: [email({ from: FROM, transport })] })
    later(() => service.close())
    const browser = new Browser(service)
    // 64 + 1 + 189 characters: the longest address there is.
    const local = localPart(newAddress()).padEnd(64, 'a')
    const address = `${local}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`
    expect(address).toHaveLength(254)
    const welcome = `${service.origin}/welcome?pad=`
    const callbackUrl = welcome + 'x'.repeat(2048 - welcome.length)
    expect(outcome(await requestLink(service, browser, address, { callbackUrl }))).toEqual({
      status: 302,
      location: verifyRequestUrl(service),
      session: false,
    })
    expect(texts).toHaveLength(1)
    const link = linkInText(texts[0]!, service.base)
    expect(link.searchParams.get('email')).toBe(address)
    expect(link.searchParams.get('callbackUrl')).toBe(callbackUrl)

    // A token of 128 characters is a token (an unknown one); of 129, there is none: refused at once.
    const longest = confirmForm(await openLink(service, browser, withParams(link, { token: 'A'.repeat(128) })))
    expect(longest.hidden).toMatchObject({ token: 'A'.repeat(128), email: address, callbackUrl })
    expect(outcome(await confirm(service, browser, longest.fields))).toEqual(refused(service))
    const tooLong = await openLink(service, browser, withParams(link, { token: 'A'.repeat(129) }))
    expect(tooLong.form).toBeUndefined()
    expect(outcome(tooLong.res)).toEqual(refused(service))

    // A callbackUrl one character longer is not carried over to the confirm page.
    const over = confirmForm(await openLink(service, browser, withParams(link, { callbackUrl: `${callbackUrl}x` })))
    expect(over.hidden).toMatchObject({ token: link.searchParams.get('token'), email: address, callbackUrl: '' })

    expect(outcome(await useLink(service, browser, link))).toEqual(signedInTo(callbackUrl))
    expect(await browser.session()).toMatchObject({ user: { email: address } })
  })

  it('with confirm: false, the GET on the link spends it and signs in', async () => {
    const service = await startEmailService({ confirm: false })
    const browser = new Browser(service)
    const address = newAddress()
    const link = await mailedLink(service, browser, address)
    expect(outcome(await browser.jar.fetch(link, {}, { crossSite: true }))).toEqual(
      signedInTo(`${service.origin}/welcome`),
    )
    expect(await browser.session()).toMatchObject({ user: { email: address, name: null, image: null } })
    expect(outcome(await new Browser(service).jar.fetch(link, {}, { crossSite: true }))).toEqual(refused(service))
  })

  it.each([2, 8])('%i concurrent POSTs of one link: exactly one session', async (count) => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const form = confirmForm(await openLink(service, browser, await mailedLink(service, browser, newAddress())))
    const answers = await Promise.all(
      Array.from({ length: count }, () => confirm(service, browser, form.fields).then(outcome)),
    )
    const signedIn = answers.filter((answer) => answer.session)
    expect(signedIn).toEqual([signedInTo(`${service.origin}/welcome`)])
    expect(answers.filter((answer) => !answer.session)).toEqual(Array(count - 1).fill(refused(service)))
  })

  it('JSON mode (json=true) answers {url} instead of redirecting', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const address = newAddress()
    for (const jsonBody of [false, true]) {
      const res = await requestLink(service, browser, jsonBody ? newAddress() : address, { json: true, jsonBody })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await res.json()).toEqual({ url: verifyRequestUrl(service) })
      await service.smtp.nextMessage()
    }
    const refusedRes = await requestLink(service, browser, 'not an address', { json: true })
    expect(await refusedRes.json()).toEqual({ url: errorUrl(service, 'EmailSignin') })
  })
})

describe("the app's signIn callback", () => {
  it('sees the request (email.verificationRequest: true) and can refuse it: AccessDenied, no mail', async () => {
    const seen: SignInCallbackParams[] = []
    let decision: SignInResult = true
    const service = await startEmailService(
      {},
      {
        callbacks: {
          signIn: (params) => {
            seen.push(params)
            return decision
          },
        },
      },
    )
    const browser = new Browser(service)
    const address = newAddress()
    const link = await mailedLink(service, browser, address)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({
      user: { id: expect.any(String), email: address },
      account: { provider: 'email', type: 'email', providerAccountId: expect.any(String) },
      email: { verificationRequest: true },
    })
    expect(outcome(await useLink(service, browser, link))).toEqual(signedInTo(`${service.origin}/welcome`))
    expect(seen.slice(1).filter((params) => params.email?.verificationRequest === true)).toEqual([])

    decision = false
    const refusedAddress = newAddress()
    expect(outcome(await requestLink(service, new Browser(service), refusedAddress))).toEqual(
      refused(service, 'AccessDenied'),
    )
    expect(seen.at(-1)).toMatchObject({ user: { email: refusedAddress }, email: { verificationRequest: true } })
    expect(await service.smtp.messagesAfter(200)).toHaveLength(1)
    expect(service.smtp.recipientsAsked()).toEqual([address])
  })
})

describe('the address', () => {
  it('is normalised before sending: NFKC, trimmed, in lower case', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const local = localPart(newAddress())
    // Full-width letters (NFKC makes them ASCII), spaces around it, a capitalised domain.
    await requestLink(service, browser, `  ${local}\uFF21@Example.COM `)
    const mail = await service.smtp.nextMessage()
    expect(mail.envelope.to).toEqual([`${local}a@example.com`])
  })

  const injections: Array<[string, unknown]> = [
    ['two addresses with a comma', 'victim@x.com,attacker@evil.com'],
    ['two addresses with a semicolon', 'victim@x.com;attacker@evil.com'],
    ['two addresses with a space', 'victim@x.com attacker@evil.com'],
    ['a quoted local part holding another address', '"victim@x.com"@evil.com'],
    ['a full-width ＠ that NFKC makes a second @', 'victim@x.com\uFF20evil.com'],
    ['CR/LF and a Bcc header', 'a@x.com\r\nBcc: evil@evil.com'],
    ['a bare LF and a Bcc header', 'a@x.com\nBcc: evil@evil.com'],
    ['a display name with the address in angle brackets', 'Victim <victim@x.com>'],
    ['a comment in parentheses', 'victim(attacker@evil.com)@x.com'],
    ['a backslash', 'vic\\tim@x.com'],
    ['a NUL', 'victim@x.com\u0000.evil.com'],
    ['a domain without a dot', 'victim@localhost'],
    ['no @ at all', 'victim.x.com'],
    ['longer than 254 characters', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`],
    ['empty', ''],
  ]

  describe.each([
    ['a form', false],
    ['a JSON body', true],
  ])('refused with EmailSignin and no mail, from %s:', (_form, jsonBody) => {
    it.each(injections)('%s', async (_label, input) => {
      const service = await startEmailService()
      const res = await requestLink(service, new Browser(service), input, { jsonBody, json: jsonBody })
      if (jsonBody) expect(await res.json()).toEqual({ url: errorUrl(service, 'EmailSignin') })
      else expect(outcome(res)).toEqual(refused(service, 'EmailSignin'))
      expect(res.status).toBe(jsonBody ? 200 : 302)
      expect(await service.smtp.messagesAfter(150)).toEqual([])
      expect(service.smtp.recipientsAsked()).toEqual([])
    })
  })

  it.each<[string, unknown]>([
    ['an array of two addresses', ['victim@x.com', 'attacker@evil.com']],
    ['an object', { address: 'victim@x.com' }],
    ['a number', 42],
  ])('a JSON body with %s as the address: refused, no mail', async (_label, input) => {
    const service = await startEmailService()
    const res = await requestLink(service, new Browser(service), input, { jsonBody: true })
    expect(outcome(res)).toEqual(refused(service, 'EmailSignin'))
    expect(await service.smtp.messagesAfter(150)).toEqual([])
    expect(service.smtp.recipientsAsked()).toEqual([])
  })

  it('a plain address in the same forms goes through (the control)', async () => {
    const service = await startEmailService()
    for (const jsonBody of [false, true]) {
      const address = newAddress()
      const res = await requestLink(service, new Browser(service), address, { jsonBody })
      expect(outcome(res)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
      expect((await service.smtp.nextMessage()).envelope.to).toEqual([address])
    }
  })
})

describe('when sending fails', () => {
  interface Failing {
    options: Partial<EmailOptions>
    /** The URL to send to, for a transport built by the spec. */
    url: string
    check?: () => void
  }

  const failures: Array<[string, () => Promise<Failing>]> = [
    ['nothing listens on the SMTP port', async () => ({ options: {}, url: await deadSmtpUrl() })],
    [
      'the server never answers (sendTimeout: 300)',
      async () => {
        const silent = await startSilentSmtp()
        later(() => silent.close())
        return {
          options: { sendTimeout: 300 },
          url: silent.url,
          check: () => expect(silent.connections()).toBeGreaterThan(0),
        }
      },
    ],
  ]

  it.each(failures)(
    '%s: EmailSignin, promptly, nobody signed in',
    async (_label, failing) => {
      const { options, url, check } = await failing()
      const service = await serve({ providers: [email({ from: FROM, server: url, ...options })] })
      later(() => service.close())
      const browser = new Browser(service)
      const started = Date.now()
      const res = await requestLink(service, browser, newAddress())
      expect(Date.now() - started).toBeLessThan(3000)
      expect(outcome(res)).toEqual(refused(service, 'EmailSignin'))
      check?.()
      expect(await browser.session()).toEqual({})
    },
    15_000,
  )

  it.each(failures)(
    '%s: the link of the mail that did not go is not valid',
    async (_label, failing) => {
      const { options, url } = await failing()
      // The spec's own nodemailer transport to that server, keeping what the service asked it to send.
      const smtpTransport = createTransport(url)
      const attempted: string[] = []
      const transport = {
        sendMail(message: Parameters<typeof smtpTransport.sendMail>[0]) {
          attempted.push(typeof message.text === 'string' ? message.text : '')
          return smtpTransport.sendMail(message)
        },
      }
      const service = await serve({ providers: [email({ from: FROM, transport, ...options })] })
      later(() => service.close())
      const browser = new Browser(service)
      expect(outcome(await requestLink(service, browser, newAddress()))).toEqual(refused(service, 'EmailSignin'))
      expect(attempted).toHaveLength(1)
      const link = linkInText(attempted[0]!, service.base)
      expect(outcome(await useLink(service, browser, link))).toEqual(refused(service))
      expect(await browser.session()).toEqual({})
    },
    15_000,
  )
})

describe('rate limits', () => {
  it('a second request for one address within a minute: the same answer as a success, no second mail', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const address = newAddress()
    const first = await requestLink(service, browser, address)
    const firstBody = await first.text()
    const link = linkInText((await service.smtp.nextMessage()).text, service.base)

    // Written differently, it is the same mailbox.
    for (const same of [address, `  ${address.replace('example.com', 'EXAMPLE.com')} `]) {
      const again = await requestLink(service, browser, same)
      expect(outcome(again)).toEqual(outcome(first))
      expect(await again.text()).toBe(firstBody)
    }
    expect(await service.smtp.messagesAfter(300)).toHaveLength(1)
    expect(service.smtp.recipientsAsked()).toEqual([address])

    const limited = service.logs.filter((entry) => entry.event === 'email.rate_limited')
    expect(limited).toHaveLength(2)
    for (const entry of limited) expect(entry).toMatchObject({ addressHash: expect.stringMatching(/.+/) })
    expect(JSON.stringify(limited)).not.toContain(localPart(address))

    // The first link was left alone.
    expect(outcome(await useLink(service, browser, link))).toEqual(signedInTo(`${service.origin}/welcome`))
  })

  it('per IP: past ipPerHour, answers as a success and sends nothing', async () => {
    const service = await startEmailService({ rateLimits: { ipPerHour: 2 } })
    const browser = new Browser(service)
    const addresses = [newAddress(), newAddress(), newAddress()]
    const answers = []
    for (const address of addresses) answers.push(outcome(await requestLink(service, browser, address)))
    expect(answers).toEqual(Array(3).fill({ status: 302, location: verifyRequestUrl(service), session: false }))
    expect((await service.smtp.messagesAfter(300)).map((mail) => mail.envelope.to)).toEqual([
      [addresses[0]],
      [addresses[1]],
    ])
    expect(service.logs).toContainEqual(expect.objectContaining({ event: 'email.rate_limited' }))
  })
})

describe('the logs', () => {
  it('never hold the token, the link, the address or its local part, whatever happened', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const address = newAddress()
    const link = await mailedLink(service, browser, address)
    const token = link.searchParams.get('token')!

    await requestLink(service, browser, address) // rate-limited
    const form = confirmForm(await openLink(service, browser, link))
    await confirm(service, browser, { ...form.fields, csrfToken: 'wrong' })
    // Another first character (a token that starts with 'A' would otherwise stay the same: 1 run in 64).
    await useLink(
      service,
      browser,
      withParams(link, { token: `${token.startsWith('A') ? 'B' : 'A'}${token.slice(1)}` }),
    )
    await useLink(service, browser, withParams(link, { email: newAddress() }))
    expect(outcome(await confirm(service, browser, form.fields)).session).toBe(true)
    expect(outcome(await useLink(service, browser, link))).toEqual(refused(service)) // spent
    await requestLink(service, browser, `${localPart(address)}@x.com,attacker@evil.com`)

    expect(service.logs.some((entry) => entry.event === 'email.rate_limited')).toBe(true)
    expectNoEntryHolding(service.logs, [token, link.href, link.search, address, localPart(address)])
  })

  it('when the server refuses the recipient, naming it in its reply, no entry names it', async () => {
    const service = await startEmailService({}, {}, { refuse: () => true })
    const address = newAddress()
    const res = await requestLink(service, new Browser(service), address)
    expect(outcome(res)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
    expect(service.logs.length).toBeGreaterThan(0)
    expectNoEntryHolding(service.logs, [address, localPart(address)])
  })
})

/** The recipient's address is in the envelope and the To header only: not in the subject, another header or a body outside the link. */
function expectAddressOnlyInLinkAndTo(
  mail: { subject: string; text: string; html: string; headerLines: string[] },
  base: string,
  address: string,
): void {
  const elsewhere = {
    subject: mail.subject,
    text: withoutSignInLinks(mail.text, base),
    html: withoutSignInLinks(decodeEntities(mail.html), base),
    headers: mail.headerLines.filter((line) => !/^to:/i.test(line)).join('\n'),
  }
  for (const [part, text] of Object.entries(elsewhere)) {
    expect({ part, address: text.includes(address), localPart: text.includes(localPart(address)) }).toEqual({
      part,
      address: false,
      localPart: false,
    })
  }
}

/** No log entry holds any of the values, as written or percent-encoded (the failure lists the entries that do). */
function expectNoEntryHolding(logs: LogEntry[], values: string[]): void {
  const written = values.flatMap((value) => [value, encodeURIComponent(value)])
  expect(logs.filter((entry) => written.some((value) => JSON.stringify(entry).includes(value)))).toEqual([])
}

/** The same link: the same endpoint, token, address and callbackUrl (whatever the order or encoding). */
function expectSameLink(actual: URL, link: URL): void {
  expect(actual.origin + actual.pathname).toBe(link.origin + link.pathname)
  for (const name of ['token', 'email', 'callbackUrl']) {
    expect(actual.searchParams.get(name)).toBe(link.searchParams.get(name))
  }
}
