import { de } from '../../lib/infra/pages/de'
import { en, type Messages, type ViewName } from '../../lib/infra/pages/messages'
import { groupedSecret } from '../../lib/infra/pages/mfa-views'
import { renderView, type ViewData } from '../../lib/infra/pages/render'
import { decodeEntities, forms, type Form, type Input } from '../support/forms'

// The second-factor pages as a browser sees them, in English and in German: the code asked at
// sign-in (the app's code, a recovery code, a passkey), an authenticator app's set-up with its QR
// code and key, and the recovery codes shown once. The field names are what the routes read; every
// value is escaped but the QR code's SVG; no inline script or style, and no script at all but our
// one file for the passkey button; no cache keeps any of them.

const BASE = 'http://localhost:3000/api/auth'
const ORIGIN = 'http://localhost:3000'
const HOSTILE = '"><script>alert(1)</script>'
const ESCAPED = '&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;'
const FORM = { base: BASE, csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` }
const PASSKEY = { optionsUrl: `${BASE}/mfa/passkey/options`, verifyUrl: `${BASE}/mfa/passkey` }
const CODES_ONLY = { totp: true, recovery: true, passkey: false as const }
const ALL = { ...CODES_ONLY, passkey: PASSKEY }
const MFA: ViewData['mfa'] = { ...FORM, action: `${BASE}/mfa/verify`, factors: CODES_ONLY }
const SCRIPT = `${BASE}/assets/passkey.js`
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 29 29"><path stroke="#000000" d="M0 0.5h7"/></svg>'
const SETUP: ViewData['mfa-setup'] = {
  ...FORM,
  action: `${BASE}/mfa/totp/confirm`,
  qrSvg: SVG,
  secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
}
const CODES: ViewData['mfa-codes'] = {
  base: BASE,
  codes: ['abcd-efgh-jkmn', 'pqrs-tvwx-yz01'],
  continueUrl: `${ORIGIN}/home`,
}
const LANGUAGES: ReadonlyArray<[string, Messages]> = [
  ['en', en],
  ['de', de],
]

function render<V extends ViewName>(view: V, data: ViewData[V], t: Messages = en) {
  return renderView(view, data, { messages: t })
}

function input(form: Form, name: string): Input {
  const found = form.inputs.find((field) => field.name === name)
  if (!found) throw new Error(`no input named ${name} in ${form.html}`)
  return found
}

const heading = (html: string) => decodeEntities(/<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '')
const alertText = (html: string) =>
  decodeEntities(/<div class="alert" role="alert">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '')
/** The passkey's form: its opening tag, and the form as ../support/forms reads it. */
function passkeyForm(html: string): { tag: string; form: Form } | null {
  const tag = /<form[^>]*data-mfa-passkey[^>]*>/.exec(html)?.[0]
  const form = forms(html).find(({ action }) => action === PASSKEY.verifyUrl)
  return tag === undefined || form === undefined ? null : { tag, form }
}

/** Ready for the pages' CSP (`style-src 'self'`, no script): no script, no inline style or handler. */
function expectNoScriptOrStyle(html: string, csp: string): void {
  expect(html).not.toMatch(/<script|<style|\sstyle=|\son\w+=/i)
  expect(csp).toContain("default-src 'none'; style-src 'self'")
  expect(csp).not.toContain('script-src')
}

/** A code from an authenticator app: six digits, the phone's keypad, the one-time-code autofill. */
function expectAppCode(form: Form): void {
  expect(input(form, 'code')).toMatchObject({
    type: 'text',
    attributes: expect.objectContaining({
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      pattern: '[0-9]{6}',
      required: '',
    }) as unknown,
  })
}

describe.each(LANGUAGES)('the second-factor page (%s)', (lang, t) => {
  it("asks for the app's code first and folds the recovery code under it, with no script", () => {
    const { html, csp, noStore } = render('mfa', MFA, t)
    expect(heading(html)).toBe(t.mfa.heading)
    expect(html).toContain(`<html lang="${lang}">`)
    expect(decodeEntities(html)).toContain(t.mfa.message)
    const [totp, recovery, ...rest] = forms(html)
    expect(rest).toEqual([])
    for (const [form, factor] of [
      [totp, 'totp'],
      [recovery, 'recovery'],
    ] as const) {
      expect(form).toMatchObject({
        method: 'post',
        action: `${BASE}/mfa/verify`,
        hidden: { csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home`, factor },
      })
      expect(form!.inputs.map(({ name }) => name)).toEqual(['csrfToken', 'callbackUrl', 'factor', 'code'])
    }
    expectAppCode(totp!)
    expect(input(totp!, 'code').attributes).toHaveProperty('autofocus')
    expect(totp!.buttons).toEqual([t.mfa.button])
    expect(input(recovery!, 'code').attributes).toMatchObject({ autocomplete: 'off', required: '' })
    expect(input(recovery!, 'code').attributes).not.toHaveProperty('autofocus')
    expect(recovery!.buttons).toEqual([t.mfa.recoveryButton])
    expect(html).toMatch(
      new RegExp(
        `<details>\\n<summary>${t.mfa.useRecoveryCode}</summary>\\n<form[^>]*>[\\s\\S]*factor" value="recovery"`,
      ),
    )
    expect(passkeyForm(html)).toBeNull()
    expect(html).not.toContain('role="alert"')
    expect(noStore).toBe(true)
    expect(csp).toContain("form-action 'none'")
    expectNoScriptOrStyle(html, csp)
  })

  it('offers a passkey as a hidden form that our one script shows, between the code and the recovery code', () => {
    const { html, csp } = render('mfa', { ...MFA, factors: ALL }, t)
    expect(forms(html).map(({ action, hidden }) => hidden.factor ?? action)).toEqual([
      'totp',
      PASSKEY.verifyUrl,
      'recovery',
    ])
    const passkey = passkeyForm(html)!
    // Hidden: without script it could do nothing, and the code forms work alone.
    expect(passkey.tag).toBe(
      `<form method="post" action="${PASSKEY.verifyUrl}" data-mfa-passkey="${PASSKEY.optionsUrl}" hidden>`,
    )
    expect(passkey.form).toMatchObject({
      method: 'post',
      hidden: { csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` },
      buttons: [t.mfa.withPasskey],
    })
    expect(passkey.form.inputs.map(({ name }) => name)).toEqual(['csrfToken', 'callbackUrl'])
    // The alert the script shows when the browser's ceremony did not happen (cancelled, no passkey).
    expect(passkey.form.html).toContain(
      `<div class="alert" role="alert" data-passkey-error hidden><p>${t.mfa.passkeyFailed}</p></div>`,
    )
    expect([...html.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag)).toEqual([`<script src="${SCRIPT}">`])
    expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/i)
    expect(csp).toContain(`script-src ${SCRIPT}; connect-src 'self'`)
  })

  it('offers only the factors the user has: a lone recovery code is shown open, with the focus', () => {
    const appOnly = render('mfa', { ...MFA, factors: { totp: true, recovery: false, passkey: false } }, t).html
    expect(forms(appOnly).map(({ hidden }) => hidden.factor)).toEqual(['totp'])
    expect(appOnly).not.toMatch(/<details|data-mfa-passkey|<script/)
    const codesOnly = render('mfa', { ...MFA, factors: { totp: false, recovery: true, passkey: false } }, t).html
    const [recovery, ...rest] = forms(codesOnly)
    expect(rest).toEqual([])
    expect(recovery?.hidden.factor).toBe('recovery')
    expect(input(recovery!, 'code').attributes).toHaveProperty('autofocus')
    expect(codesOnly).not.toMatch(/<details|data-mfa-passkey/)
    const passkeyOnly = render('mfa', { ...MFA, factors: { totp: false, recovery: false, passkey: PASSKEY } }, t).html
    expect(forms(passkeyOnly).map(({ action }) => action)).toEqual([PASSKEY.verifyUrl])
    expect(passkeyForm(passkeyOnly)?.form.buttons).toEqual([t.mfa.withPasskey])
  })

  it('says a refused passkey did not work, and leaves the code field as it was', () => {
    const { html } = render('mfa', { ...MFA, factors: ALL, error: 'passkey' }, t)
    expect(alertText(html)).toContain(t.mfa.passkeyFailed)
    const [totp] = forms(html)
    expect(input(totp!, 'code').attributes).not.toHaveProperty('aria-invalid')
    expect(passkeyForm(html)).not.toBeNull()
  })

  it('says a wrong code did not work, and keeps the forms', () => {
    const { html } = render('mfa', { ...MFA, error: 'wrong' }, t)
    expect(alertText(html)).toContain(t.mfa.wrong)
    const [totp] = forms(html)
    expect(input(totp!, 'code').attributes).toMatchObject({ 'aria-invalid': 'true' })
    expect(forms(html)).toHaveLength(2)
  })

  it('after too many wrong codes, offers no form: only a link to sign in again, toward the same place', () => {
    const { html, csp } = render('mfa', { ...MFA, factors: ALL, error: 'ended' }, t)
    expect(alertText(html)).toContain(t.mfa.ended)
    expect(forms(html)).toEqual([])
    expect(passkeyForm(html)).toBeNull()
    expectNoScriptOrStyle(html, csp)
    const signIn = `${BASE}/signin?callbackUrl=${encodeURIComponent(`${ORIGIN}/home`)}`
    expect(decodeEntities(html)).toContain(`<a class="button" href="${signIn}">${t.mfa.signIn}</a>`)
  })
})

describe.each(LANGUAGES)('the authenticator set-up page (%s)', (lang, t) => {
  it('shows the QR code as the server drew it, the key in groups of four, and asks for the first code', () => {
    const { html, csp, noStore } = render('mfa-setup', SETUP, t)
    expect(heading(html)).toBe(t.mfa.setup.heading)
    expect(html).toContain(`<html lang="${lang}">`)
    expect(html).toContain(`<div class="qr" aria-hidden="true">${SVG}</div>`)
    expect(decodeEntities(html)).toContain(t.mfa.setup.scan)
    expect(decodeEntities(html)).toContain(t.mfa.setup.manual)
    expect(html).toContain('<p class="secret"><code>JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP</code></p>')
    const [form, ...rest] = forms(html)
    expect(rest).toEqual([])
    expect(form).toMatchObject({
      method: 'post',
      action: `${BASE}/mfa/totp/confirm`,
      hidden: { csrfToken: 'csrf-1', callbackUrl: `${ORIGIN}/home` },
      buttons: [t.mfa.setup.button],
    })
    expect(form!.inputs.map(({ name }) => name)).toEqual(['csrfToken', 'callbackUrl', 'code'])
    expectAppCode(form!)
    expect(html).not.toContain('role="alert"')
    expect(noStore).toBe(true)
    expectNoScriptOrStyle(html, csp)
  })

  it('says a wrong first code did not work', () => {
    const { html } = render('mfa-setup', { ...SETUP, error: 'wrong' }, t)
    expect(alertText(html)).toContain(t.mfa.wrong)
    expect(input(forms(html)[0]!, 'code').attributes).toMatchObject({ 'aria-invalid': 'true' })
  })
})

describe.each(LANGUAGES)('the recovery codes page (%s)', (lang, t) => {
  it('lists each code, says they work once and are not shown again, and links on', () => {
    const { html, csp, noStore } = render('mfa-codes', CODES, t)
    expect(heading(html)).toBe(t.mfa.codes.heading)
    expect(html).toContain(`<html lang="${lang}">`)
    expect([...html.matchAll(/<li><code>([^<]*)<\/code><\/li>/g)].map(([, code]) => code)).toEqual(CODES.codes)
    expect(decodeEntities(html)).toContain(t.mfa.codes.message)
    expect(html).toContain(`<a class="button" href="${ORIGIN}/home">${t.mfa.codes.continue}</a>`)
    expect(forms(html)).toEqual([])
    // The codes are a secret: no cache may keep the page.
    expect(noStore).toBe(true)
    expectNoScriptOrStyle(html, csp)
  })
})

describe('the second-factor pages escape every value but the QR code', () => {
  it('keeps hostile values intact as form values, and never as markup', () => {
    const hostileForm = { csrfToken: HOSTILE, callbackUrl: `${ORIGIN}/home?next="'><b>x` }
    const pages = [
      render('mfa', { ...MFA, ...hostileForm, action: `${BASE}/mfa/verify?"><b>` }).html,
      render('mfa-setup', { ...SETUP, ...hostileForm, secret: HOSTILE }).html,
      render('mfa-codes', { ...CODES, codes: [HOSTILE], continueUrl: `${ORIGIN}/"><script>` }).html,
    ]
    for (const html of pages) expect(html).not.toMatch(/<script|<b>/i)
    for (const form of [...forms(pages[0]!), ...forms(pages[1]!)]) {
      expect(form.hidden).toMatchObject(hostileForm)
    }
    const hostilePasskey = { optionsUrl: `${BASE}/mfa/passkey/options?"><b>`, verifyUrl: `${BASE}/mfa/passkey?"><b>` }
    const withPasskey = render('mfa', { ...MFA, ...hostileForm, factors: { ...ALL, passkey: hostilePasskey } }).html
    expect(withPasskey).not.toMatch(/<b>/)
    expect([...withPasskey.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag)).toEqual([`<script src="${SCRIPT}">`])
    expect(passkeyForm(withPasskey)).toBeNull()
    expect(forms(withPasskey).find(({ action }) => action === hostilePasskey.verifyUrl)?.hidden).toMatchObject(
      hostileForm,
    )
    const secret = /<code>([^<]*)<\/code>/.exec(pages[1]!)?.[1] ?? ''
    expect(decodeEntities(secret)).toBe(groupedSecret(HOSTILE))
    expect(pages[2]).toContain(`<li><code>${ESCAPED}</code></li>`)
    const ended = render('mfa', { ...MFA, ...hostileForm, error: 'ended' }).html
    const href = decodeEntities(/<a class="button" href="([^"]*)"/.exec(ended)?.[1] ?? '')
    expect(new URL(href).searchParams.get('callbackUrl')).toBe(hostileForm.callbackUrl)
    expect(ended).not.toMatch(/<b>/)
  })
})

describe('the second-factor texts', () => {
  it('are all translated in German', () => {
    const leaves = (texts: object): string[] =>
      Object.values(texts).flatMap((value: unknown) => (typeof value === 'string' ? [value] : leaves(value as object)))
    const english = leaves(en.mfa)
    const german = leaves(de.mfa)
    expect(german).toHaveLength(english.length)
    german.forEach((text, i) => expect(text).not.toBe(english[i]))
    for (const view of ['mfa', 'mfa-setup', 'mfa-codes'] as const) expect(de.titles[view]).not.toBe(en.titles[view])
  })

  it('group the key in fours, the last group as long as what is left', () => {
    expect(groupedSecret('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP')
    expect(groupedSecret('ABCDEF')).toBe('ABCD EF')
    expect(groupedSecret('')).toBe('')
  })
})
