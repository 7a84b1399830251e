import { de } from '../../lib/infra/pages/de'
import { renderPasswordMail } from '../../lib/infra/pages/email'
import { en, type Messages, type PasswordRuleCode, type ViewName } from '../../lib/infra/pages/messages'
import { renderView, type ProviderLink, type SigninData, type ViewData } from '../../lib/infra/pages/render'
import { decodeEntities, forms, type Form, type Input } from '../support/forms'

// The password pages and mails (`password()`) as a browser and a mail reader see them, in English
// and in German: the fields a password manager needs (autocomplete), the policy's lengths on the
// fields, each broken rule named by its text (never by its code), every value escaped, no script
// and no inline style; each mail's link in its text and HTML parts.

const BASE = 'http://localhost:3000/api/auth'
const ORIGIN = 'http://localhost:3000'
const HOSTILE = '"><script>alert(1)</script>'
const LENGTHS = { minLength: 12, maxLength: 200 }
const FORM = { base: BASE, csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` }
const CODES: readonly PasswordRuleCode[] = [
  'tooShort',
  'tooLong',
  'common',
  'containsIdentifier',
  'containsAppName',
  'breached',
  'unverifiable',
]
const LANGUAGES: ReadonlyArray<[string, Messages]> = [
  ['en', en],
  ['de', de],
]

function render<V extends ViewName>(view: V, data: ViewData[V], t: Messages = en) {
  return renderView(view, data, { messages: t })
}

/** The page's only form (the password pages have one). */
function onlyForm(html: string): Form {
  const all = forms(html)
  expect(all).toHaveLength(1)
  return all[0]!
}

function input(form: Form, name: string): Input {
  const found = form.inputs.find((field) => field.name === name)
  if (!found) throw new Error(`no input named ${name} in ${form.html}`)
  return found
}

const heading = (html: string) => decodeEntities(/<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '')
const items = (html: string) => [...html.matchAll(/<li>([^<]*)<\/li>/g)].map(([, text = '']) => decodeEntities(text))
const alertText = (html: string) =>
  decodeEntities(/<div class="alert" role="alert">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '')

/** Ready for the pages' CSP (`style-src 'self'`, no script): no script, no inline style or handler. */
function expectNoScriptOrStyle(html: string, csp: string): void {
  expect(html).not.toMatch(/<script|<style|\sstyle=|\son\w+=/i)
  expect(csp).toContain("default-src 'none'; style-src 'self'")
  expect(csp).not.toContain('script-src')
}

/** The new-password field: autocomplete new-password, the policy's lengths, the hint that says them. */
function expectNewPassword(html: string, form: Form, name: string, t: Messages): void {
  expect(input(form, name)).toMatchObject({
    type: 'password',
    attributes: expect.objectContaining({ autocomplete: 'new-password', minlength: '12', maxlength: '200' }) as unknown,
  })
  expect(html).toContain(`<p class="hint" id="new-password-hint">`)
  expect(decodeEntities(html)).toContain(t.password.hint.replace('{min}', '12').replace('{max}', '200'))
}

/** The broken rules, as a list of their texts in the page's language; no code appears anywhere. */
function expectReasons(html: string, t: Messages, codes: readonly PasswordRuleCode[]): void {
  const texts = codes.map((code) => t.password.reasons[code].replace('{min}', '12').replace('{max}', '200'))
  expect(items(html)).toEqual(texts)
  expect(alertText(html)).toContain(t.password.rejected)
  const rest = texts.reduce((page, text) => page.split(text).join(''), decodeEntities(html))
  for (const code of CODES) expect(rest).not.toMatch(new RegExp(`\\b${code}\\b`))
}

const GITHUB: ProviderLink = { id: 'github', name: 'GitHub', type: 'oauth', signinUrl: `${BASE}/signin/github` }
const EMAIL: ProviderLink = { id: 'email', name: 'Email', type: 'email', signinUrl: `${BASE}/signin/email` }
const CREDENTIALS = {
  action: `${BASE}/callback/credentials`,
  identifier: 'email' as const,
  forgotUrl: `${BASE}/password/forgot`,
  signUpUrl: `${BASE}/password/signup`,
}
const SIGNIN: SigninData = { ...FORM, providers: [GITHUB, EMAIL], credentials: CREDENTIALS }

describe.each(LANGUAGES)('the sign-in page with a password provider (%s)', (lang, t) => {
  it('has the password form after the OAuth buttons and before the e-mail form, with links to reset and sign up', () => {
    const { html, csp } = render('signin', SIGNIN, t)
    const [github, password, email, ...rest] = forms(html)
    expect(rest).toEqual([])
    expect(github?.action).toBe(GITHUB.signinUrl)
    expect(email?.action).toBe(EMAIL.signinUrl)
    expect(password).toMatchObject({
      method: 'post',
      action: CREDENTIALS.action,
      hidden: { csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` },
      buttons: [t.signin.withPassword],
    })
    expect(input(password!, 'email')).toMatchObject({
      type: 'email',
      attributes: expect.objectContaining({ autocomplete: 'username' }) as unknown,
    })
    expect(input(password!, 'password')).toMatchObject({
      type: 'password',
      attributes: expect.objectContaining({ autocomplete: 'current-password' }) as unknown,
    })
    // Pasting stays allowed: no handler, no attribute that blocks it.
    expect(password!.html).not.toMatch(/paste|maxlength|minlength/i)
    expect(password!.html).toContain(`<label for="credentials-identifier">${t.signin.emailLabel}</label>`)
    expect(password!.html).toContain(`<label for="credentials-password">${t.signin.passwordLabel}</label>`)
    // One "or" between the OAuth buttons and the password form, one between it and the e-mail form.
    expect(html.match(/class="divider"/g)).toHaveLength(2)
    const back = encodeURIComponent(`${ORIGIN}/home`)
    expect(html).toContain(`<a href="${BASE}/password/forgot?callbackUrl=${back}">${t.signin.forgotPassword}</a>`)
    expect(html).toContain(`<a href="${BASE}/password/signup?callbackUrl=${back}">${t.signin.createAccount}</a>`)
    expect(html).toContain(`<html lang="${lang}">`)
    expectNoScriptOrStyle(html, csp)
  })

  it('asks for a user name as text with `identifier: username`, and leaves out links it is not given', () => {
    const credentials = { ...CREDENTIALS, identifier: 'username' as const, forgotUrl: null, signUpUrl: null }
    const { html } = render('signin', { ...FORM, providers: [], credentials }, t)
    const form = onlyForm(html)
    expect(input(form, 'username')).toMatchObject({
      type: 'text',
      attributes: expect.objectContaining({ autocomplete: 'username' }) as unknown,
    })
    expect(form.html).toContain(`<label for="credentials-identifier">${t.signin.usernameLabel}</label>`)
    expect(form.inputs.map(({ name }) => name)).toEqual(['csrfToken', 'callbackUrl', 'username', 'password'])
    expect(html).not.toMatch(/class="(divider|links)"/)
    expect(html).not.toContain('<a ')
  })
})

describe.each(LANGUAGES)('the sign-up page (%s)', (lang, t) => {
  const data: ViewData['password-signup'] = {
    ...FORM,
    ...LENGTHS,
    action: `${BASE}/password/signup`,
    identifier: 'email',
    signInUrl: `${BASE}/signin`,
  }

  it('asks for the address, a name and a new password, with the policy lengths on the field', () => {
    const { html, csp, noStore } = render('password-signup', data, t)
    expect(heading(html)).toBe(t.password.signUp.heading)
    expect(html).toContain(`<html lang="${lang}">`)
    const form = onlyForm(html)
    expect(form).toMatchObject({
      method: 'post',
      action: data.action,
      hidden: { csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` },
      buttons: [t.password.signUp.button],
    })
    expect(form.inputs.map(({ name, type }) => [name, type])).toEqual([
      ['csrfToken', 'hidden'],
      ['callbackUrl', 'hidden'],
      ['email', 'email'],
      ['name', 'text'],
      ['password', 'password'],
    ])
    expect(input(form, 'email').attributes).toMatchObject({ autocomplete: 'username', required: '' })
    expect(input(form, 'name').attributes).toMatchObject({ autocomplete: 'name' })
    expect(input(form, 'name').attributes).not.toHaveProperty('required')
    expectNewPassword(html, form, 'password', t)
    expect(html).toContain(`<a href="${BASE}/signin">${t.password.signUp.signIn}</a>`)
    expect(html).not.toContain('role="alert"')
    expect(noStore).toBe(true)
    expectNoScriptOrStyle(html, csp)
  })

  it('comes back filled in, listing every rule the password broke by its text', () => {
    const { html } = render('password-signup', { ...data, value: 'a@example.com', name: 'Ada', reasons: CODES }, t)
    const form = onlyForm(html)
    expect(form.fields).toMatchObject({ email: 'a@example.com', name: 'Ada', password: '' })
    expect(input(form, 'password').attributes).toMatchObject({ 'aria-invalid': 'true' })
    expectReasons(html, t, CODES)
  })

  it('asks for a user name with `identifier: username`, and says when it is not one or is taken', () => {
    const named = { ...data, identifier: 'username' as const }
    const form = onlyForm(render('password-signup', named, t).html)
    expect(input(form, 'username')).toMatchObject({
      type: 'text',
      attributes: expect.objectContaining({ autocomplete: 'username' }) as unknown,
    })
    expect(alertText(render('password-signup', { ...named, invalidIdentifier: true }, t).html)).toContain(
      t.password.invalidUsername,
    )
    expect(alertText(render('password-signup', { ...named, taken: true }, t).html)).toContain(t.password.usernameTaken)
    expect(alertText(render('password-signup', { ...data, invalidIdentifier: true }, t).html)).toContain(
      t.password.invalidEmail,
    )
  })
})

describe.each(LANGUAGES)('the forgot-password page (%s)', (lang, t) => {
  it('asks for the identifier and links back to the sign-in page, keeping callbackUrl', () => {
    const data = { ...FORM, action: `${BASE}/password/forgot`, identifier: 'email' as const, value: 'a@example.com' }
    const { html, csp, noStore } = render('password-forgot', data, t)
    expect(heading(html)).toBe(t.password.forgot.heading)
    expect(html).toContain(`<html lang="${lang}">`)
    expect(decodeEntities(html)).toContain(t.password.forgot.message)
    const form = onlyForm(html)
    expect(form).toMatchObject({
      action: data.action,
      hidden: { csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` },
      fields: { email: 'a@example.com' },
      buttons: [t.password.forgot.button],
    })
    expect(input(form, 'email')).toMatchObject({
      type: 'email',
      attributes: expect.objectContaining({ autocomplete: 'username' }) as unknown,
    })
    expect(html).toContain(`<a href="${BASE}/signin?callbackUrl=${encodeURIComponent(`${ORIGIN}/home`)}">`)
    expect(noStore).toBe(true)
    expectNoScriptOrStyle(html, csp)
    const named = onlyForm(render('password-forgot', { ...data, identifier: 'username' }, t).html)
    expect(input(named, 'username')).toMatchObject({
      type: 'text',
      attributes: expect.objectContaining({ autocomplete: 'username' }) as unknown,
    })
  })
})

describe.each(LANGUAGES)('the reset page (%s)', (lang, t) => {
  const data = { ...FORM, ...LENGTHS, action: `${BASE}/password/reset`, token: 'tok-1', email: 'a@example.com' }

  it("posts the link's token and address with the new password; the address shows read-only as the username", () => {
    const { html, csp, noStore } = render('password-reset', data, t)
    expect(heading(html)).toBe(t.password.reset.heading)
    expect(html).toContain(`<html lang="${lang}">`)
    const form = onlyForm(html)
    expect(form).toMatchObject({
      action: data.action,
      hidden: { token: 'tok-1', csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` },
      fields: { email: 'a@example.com', password: '' },
      buttons: [t.password.reset.button],
    })
    expect(input(form, 'email').attributes).toMatchObject({ autocomplete: 'username', readonly: '' })
    expectNewPassword(html, form, 'password', t)
    expect(noStore).toBe(true)
    expectNoScriptOrStyle(html, csp)
  })

  it('lists the broken rules, each once', () => {
    const { html } = render('password-reset', { ...data, reasons: ['breached', 'tooShort', 'breached'] }, t)
    expectReasons(html, t, ['breached', 'tooShort'])
  })
})

describe.each(LANGUAGES)('the change-password page (%s)', (lang, t) => {
  const data = {
    ...FORM,
    ...LENGTHS,
    action: `${BASE}/password/change`,
    needsCurrent: true,
    adding: false,
    askUsername: false,
  }

  it('asks for the current password (current-password) and the new one (new-password)', () => {
    const { html, csp, noStore } = render('password-change', data, t)
    expect(heading(html)).toBe(t.password.change.heading)
    expect(html).toContain(`<html lang="${lang}">`)
    const form = onlyForm(html)
    expect(form).toMatchObject({
      action: data.action,
      hidden: { csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` },
      buttons: [t.password.change.button],
    })
    expect(form.inputs.map(({ name }) => name)).toEqual(['csrfToken', 'callbackUrl', 'currentPassword', 'newPassword'])
    expect(input(form, 'currentPassword')).toMatchObject({
      type: 'password',
      attributes: expect.objectContaining({ autocomplete: 'current-password' }) as unknown,
    })
    expectNewPassword(html, form, 'newPassword', t)
    expect(noStore).toBe(true)
    expectNoScriptOrStyle(html, csp)
  })

  it('leaves out the current password after a recent sign-in, and says when the one given was wrong', () => {
    const recent = onlyForm(render('password-change', { ...data, needsCurrent: false }, t).html)
    expect(recent.inputs.map(({ name }) => name)).toEqual(['csrfToken', 'callbackUrl', 'newPassword'])
    const wrong = render('password-change', { ...data, wrongCurrent: true }, t).html
    expect(alertText(wrong)).toContain(t.password.change.wrongCurrent)
    expect(items(wrong)).toEqual([])
  })

  it('adds a first password, asking for a user name when the provider uses them', () => {
    const adding = { ...data, needsCurrent: false, adding: true, askUsername: true }
    const { html } = render('password-change', adding, t)
    expect(heading(html)).toBe(t.password.change.addHeading)
    expect(decodeEntities(html)).toContain(t.password.change.addMessage)
    const form = onlyForm(html)
    expect(form.buttons).toEqual([t.password.change.addButton])
    expect(form.inputs.map(({ name }) => name)).toEqual(['csrfToken', 'callbackUrl', 'username', 'newPassword'])
    expect(input(form, 'username').attributes).toMatchObject({ autocomplete: 'username' })
    expect(alertText(render('password-change', { ...adding, taken: true }, t).html)).toContain(t.password.usernameTaken)
    const byEmail = { ...adding, askUsername: false }
    expect(alertText(render('password-change', { ...byEmail, invalidIdentifier: true }, t).html)).toContain(
      t.password.change.noVerifiedEmail,
    )
    expect(alertText(render('password-change', { ...byEmail, taken: true }, t).html)).toContain(
      t.password.change.emailTaken,
    )
  })

  it('lists the broken rules by their texts', () => {
    expectReasons(render('password-change', { ...data, reasons: ['containsIdentifier', 'common'] }, t).html, t, [
      'containsIdentifier',
      'common',
    ])
  })
})

describe.each(LANGUAGES)('the check-your-email and done pages (%s)', (lang, t) => {
  it.each(['signup', 'reset'] as const)('says what was sent (%s), with no form, cacheable', (kind) => {
    const { html, csp, noStore } = render('password-sent', { base: BASE, kind }, t)
    expect(heading(html)).toBe(t.password.sent[kind].heading)
    expect(decodeEntities(html)).toContain(t.password.sent[kind].message)
    expect(html).toContain(`<html lang="${lang}">`)
    expect(html).toContain(`<a href="${BASE}/signin">${t.error.backToSignIn}</a>`)
    expect(forms(html)).toEqual([])
    expect(noStore).toBe(false)
    expectNoScriptOrStyle(html, csp)
  })

  it.each([
    ['reset', `${BASE}/signin?callbackUrl=x`],
    ['changed', `${ORIGIN}/home`],
    ['added', `${ORIGIN}/home`],
  ] as const)('says the password is saved (%s) and links on to %s', (kind, url) => {
    const data = { base: BASE, kind, signInUrl: `${BASE}/signin?callbackUrl=x`, callbackUrl: `${ORIGIN}/home` }
    const { html, csp } = render('password-done', data, t)
    expect(heading(html)).toBe(t.password.done[kind].heading)
    expect(decodeEntities(html)).toContain(t.password.done[kind].message)
    expect(decodeEntities(html)).toContain(`<a class="button" href="${url}">${t.password.done[kind].link}</a>`)
    expectNoScriptOrStyle(html, csp)
  })
})

describe('the rules a password breaks', () => {
  it.each(LANGUAGES)('each have their own text in %s', (_, t) => {
    const texts = CODES.map((code) => t.password.reasons[code])
    expect(new Set(texts).size).toBe(CODES.length)
    for (const text of texts) expect(text.length).toBeGreaterThan(10)
    expect(Object.keys(t.password.reasons).sort()).toEqual([...CODES].sort())
  })

  it('are never shown by a code the texts do not know, even a hostile or inherited one', () => {
    const reasons = ['tooShort', HOSTILE, 'constructor', '__proto__'] as unknown as PasswordRuleCode[]
    const data = { ...FORM, ...LENGTHS, action: `${BASE}/password/reset`, token: 't', email: 'a@example.com', reasons }
    const { html } = render('password-reset', data)
    expect(items(html)).toEqual(['It has fewer than 12 characters.'])
    expect(html).not.toMatch(/<script|constructor|__proto__/)
  })
})

describe('the password pages escape every value', () => {
  it('keeps hostile values intact as form values, and never as markup', () => {
    const signup = render('password-signup', {
      ...FORM,
      ...LENGTHS,
      csrfToken: HOSTILE,
      callbackUrl: 'javascript:alert(1)',
      action: `${BASE}/password/signup`,
      identifier: 'email',
      value: HOSTILE,
      name: HOSTILE,
      signInUrl: `${BASE}/signin`,
    }).html
    const reset = render('password-reset', {
      ...FORM,
      ...LENGTHS,
      action: `${BASE}/password/reset`,
      token: HOSTILE,
      email: HOSTILE,
    }).html
    for (const html of [signup, reset]) {
      expect(html).not.toMatch(/<script/i)
      expect(html).toContain('&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;')
    }
    expect(onlyForm(signup).fields).toMatchObject({ csrfToken: HOSTILE, email: HOSTILE, name: HOSTILE })
    expect(onlyForm(reset).fields).toMatchObject({ token: HOSTILE, email: HOSTILE })
  })
})

describe.each(LANGUAGES)('the password mails (%s)', (lang, t) => {
  const host = 'localhost:3000'
  const url = `${BASE}/password/reset?token=tok-1&email=a%40example.com`

  it.each(['signup', 'reset'] as const)('%s: the link, in the text and as a button in the HTML', (kind) => {
    const mail = renderPasswordMail(kind, { url, host }, t)
    const texts = t.passwordMail[kind]
    expect(mail.subject).toBe(texts.subject.replace('{host}', host))
    expect(mail.text).toContain(`${texts.linkText}\n${url}\n`)
    expect(mail.text).toContain(texts.message.replace('{host}', host))
    expect(mail.text).toContain(texts.ignore)
    expect(mail.text).not.toContain('&amp;')
    expect(mail.html).toContain(`<html lang="${lang}">`)
    expect(mail.html).toContain(`<a href="${url.replace('&', '&amp;')}"`)
    expect(decodeEntities(mail.html)).toContain(`>${texts.button}</a>`)
    expect(decodeEntities(mail.html)).toContain(texts.heading.replace('{host}', host))
    expect(mail.html).not.toMatch(/<script|\{host\}/)
  })

  it('signupExists: tells the owner someone tried, with the sign-in page as its only link', () => {
    const signIn = `${BASE}/signin?callbackUrl=${encodeURIComponent(`${ORIGIN}/home`)}`
    const mail = renderPasswordMail('signupExists', { url: signIn, host }, t)
    const texts = t.passwordMail.signupExists
    expect(mail.subject).toBe(texts.subject.replace('{host}', host))
    expect(mail.text).toContain(texts.message.replace('{host}', host))
    expect(mail.text).toContain(`${texts.linkText}\n${signIn}\n`)
    expect(mail.text).not.toMatch(/token=/)
    expect([...mail.html.matchAll(/href="([^"]*)"/g)].map(([, href]) => decodeEntities(href!))).toEqual([signIn])
  })

  it('escapes the link and the host in the HTML only', () => {
    const mail = renderPasswordMail('reset', { url: `${BASE}/password/reset?token="><b>`, host: '<i>host' }, t)
    expect(mail.html).not.toMatch(/<b>|<i>/)
    expect(mail.text).toContain(`${BASE}/password/reset?token="><b>`)
  })
})
