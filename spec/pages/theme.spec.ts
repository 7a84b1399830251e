import request from 'supertest'
import { auth, email, oidc, type AuthOptions } from '../../lib'
import { isCssColor } from '../../lib/infra/config/theme'
import { BRANDED_IDS } from '../../lib/infra/pages/brands'
import { makeApp, testOptions } from '../support/app'
import { configError } from '../support/config-error'
import { forms } from '../support/forms'

// NextAuth's `theme` on the built-in pages: the colour scheme follows the reader unless the app
// fixes it, brandColor and buttonText reach the pages only through the stylesheet route, the logo
// only as an escaped image whose origin alone the CSP adds, and the well-known providers get their
// own buttons. No hostile value gets CSS or HTML into a page: it fails at auth().

const provider = (id: string, name = id) =>
  oidc({ id, name, issuer: 'https://idp.example.com', clientId: 'app', clientSecret: 'secret' })
const STRICT = "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"
const themed = (theme: AuthOptions['theme'], providers = [provider('github', 'GitHub')]) =>
  makeApp({ providers, theme }).app

/** auth() with a test service's options and this `theme`. */
function start(theme: unknown) {
  const { logs, ...options } = testOptions({ theme: theme as AuthOptions['theme'] })
  void logs
  return auth(options)
}

async function signin(app: ReturnType<typeof themed>) {
  return request(app).get('/api/auth/signin').expect(200)
}
async function stylesheet(app: ReturnType<typeof themed>) {
  const res = await request(app).get('/api/auth/assets/style.css').expect(200)
  return { css: res.text, etag: String(res.headers.etag) }
}

describe('theme.colorScheme', () => {
  it("follows the reader's prefers-color-scheme by default, and holds light or dark when the app says so", async () => {
    const auto = await signin(themed(undefined))
    expect(auto.text).toContain('<body class="theme-auto">')
    const { css } = await stylesheet(themed(undefined))
    // The dark palette applies under the reader's dark setting unless the page holds light, and
    // always on a page that holds dark.
    expect(css).toMatch(/@media \(prefers-color-scheme: dark\) \{\s*body:not\(\.theme-light\) \{\s*--bg: #09090b;/)
    expect(css).toMatch(/body\.theme-dark \{\s*color-scheme: dark;\s*--bg: #09090b;/)
    expect(css).toMatch(/body\.theme-light \{ color-scheme: light; \}/)
    for (const colorScheme of ['light', 'dark', 'auto'] as const) {
      const res = await signin(themed({ colorScheme }))
      expect(res.text).toContain(`<body class="theme-${colorScheme}">`)
      for (const page of ['signout', 'error?error=AccessDenied', 'verify-request', 'nowhere']) {
        const other = await request(themed({ colorScheme })).get(`/api/auth/${page}`)
        expect(other.text).toContain(`<body class="theme-${colorScheme}">`)
      }
    }
  })

  it('fails at auth() on anything but auto, light or dark', () => {
    expect(configError(() => start({ colorScheme: 'system' }))).toBe(
      "`theme.colorScheme` must be 'auto' (the reader's setting), 'light' or 'dark'; got \"system\"",
    )
    expect(configError(() => start({ colourScheme: 'dark' }))).toMatch(
      /^Unknown option `theme.colourScheme`. Did you mean `theme.colorScheme`\?/,
    )
    expect(configError(() => start('dark'))).toBe('`theme` must be an object; got "dark"')
  })
})

describe('theme.brandColor and theme.buttonText', () => {
  it('colour the pages through the stylesheet route only: the pages and their CSP stay as they were', async () => {
    const plain = themed(undefined)
    const app = themed({ brandColor: '#346df1', buttonText: 'rgb(255 255 255 / 90%)' })
    const res = await signin(app)
    expect(res.text).not.toMatch(/<style|\sstyle=|#346df1/i)
    expect(res.headers['content-security-policy']).toBe((await signin(plain)).headers['content-security-policy'])
    expect(res.headers['content-security-policy']).toMatch(new RegExp(`^${STRICT}; form-action `))
    const before = await stylesheet(plain)
    const after = await stylesheet(app)
    expect(after.css.startsWith(before.css)).toBe(true)
    expect(after.css.slice(before.css.length)).toBe(
      '\n/* theme: brandColor and buttonText */\n:root {\n  --brand: #346df1;\n  --brand-hover-filter: brightness(0.9);\n' +
        '  --brand-text: rgb(255 255 255 / 90%);\n}\n.card { border-top: 4px solid var(--brand); }\n',
    )
    // The pages' own buttons take them; the browser never keeps the other theme's stylesheet.
    expect(before.css).toContain('background: var(--brand, var(--button));')
    expect(before.css).toContain('color: var(--brand-text, var(--button-text));')
    expect(after.etag).not.toBe(before.etag)
    await request(app).get('/api/auth/assets/style.css').set('If-None-Match', after.etag).expect(304)
    await request(app).get('/api/auth/assets/style.css').set('If-None-Match', before.etag).expect(200)
  })

  it.each([
    ['#346df1'],
    ['#fff'],
    ['#346df180'],
    ['rgb(52, 109, 241)'],
    ['hsl(221deg 87% 57%)'],
    ['oklch(0.6 0.2 260 / 50%)'],
    ['RebeccaPurple'],
  ])('takes the CSS colour %s', (color) => {
    expect(isCssColor(color)).toBe(true)
    expect(() => start({ brandColor: color, buttonText: color })).not.toThrow()
  })

  it.each([
    ['red; } body { display: none'],
    ['#346df1;background:url(https://evil.example/x)'],
    ['rgb(0 0 0) } .card { display: none } :root { --x: 1'],
    ['var(--text)'],
    ['url(https://evil.example/)'],
    ['rgb(1, 2, 3'],
    ['</style><script>alert(1)</script>'],
    ['#12345'],
    ['bleu'],
    ['expression(alert(1))'],
  ])('refuses %j at auth(), naming the option', (value) => {
    expect(isCssColor(value)).toBe(false)
    expect(configError(() => start({ brandColor: value }))).toMatch(
      /^`theme\.brandColor` must be a CSS colour such as '#346df1', 'rgb\(52 109 241\)' or 'rebeccapurple'; got /,
    )
    expect(configError(() => start({ buttonText: value }))).toMatch(/^`theme\.buttonText` must be/)
  })

  it('refuses a colour that is not a string', () => {
    expect(configError(() => start({ brandColor: 0x346df1 }))).toMatch(
      /^`theme\.brandColor` must be a CSS colour .*; got 3436017$/,
    )
  })
})

describe('theme.logo', () => {
  it('shows an https logo above the card, and the CSP adds its origin as img-src and nothing else', async () => {
    const plain = await signin(themed(undefined))
    const res = await signin(themed({ logo: 'https://cdn.example.com/brand/logo.svg?v=2&x=1' }))
    expect(res.text).toContain(
      '<body class="theme-auto">\n<img class="logo" src="https://cdn.example.com/brand/logo.svg?v=2&amp;x=1" alt="">\n<main class="card">',
    )
    expect(plain.headers['content-security-policy']).toBe(`${STRICT}; form-action 'self' https://idp.example.com`)
    expect(res.headers['content-security-policy']).toBe(
      `${STRICT}; img-src https://cdn.example.com; form-action 'self' https://idp.example.com`,
    )
    const error = await request(themed({ logo: '/static/logo.png' })).get('/api/auth/error?error=AccessDenied')
    expect(error.text).toContain('<img class="logo" src="/static/logo.png" alt="">')
    expect(error.headers['content-security-policy']).toBe(`${STRICT}; img-src 'self'; form-action 'none'`)
  })

  it('keeps the CSP and the page as they were without a logo', async () => {
    const res = await signin(themed({ colorScheme: 'dark', brandColor: '#000' }))
    expect(res.text).not.toContain('<img')
    expect(res.headers['content-security-policy']).not.toContain('img-src')
  })

  it.each([
    ['http://cdn.example.com/logo.svg'],
    ['javascript:alert(1)'],
    ['data:image/svg+xml,<svg onload=alert(1)>'],
    ['//evil.example/logo.svg'],
    ['/logo.svg" onerror="alert(1)'],
    ["/logo.svg'><script>"],
    ['https://user:pass@cdn.example.com/logo.svg'],
    ['https://cdn.example.com/logo.svg\nSet-Cookie: x'],
    ['https://'],
    // A host the URL parser lets through but a CSP source list would split: a directive of its own.
    ['https://cdn.example.com;script-src/logo.svg'],
    ['https://cdn.example.com,evil/logo.svg'],
  ])('refuses %j at auth(), naming the option', (logo) => {
    expect(configError(() => start({ logo }))).toMatch(
      /^`theme\.logo` must be an https URL such as 'https:\/\/example.com\/logo.svg', or a path on this site such as '\/logo.svg'; got /,
    )
  })
})

describe("the well-known providers' buttons", () => {
  it('are recognised by their NextAuth ids and get their brand class and an inline SVG logo', async () => {
    const ids = [
      'google',
      'github',
      'azure-ad',
      'microsoft-entra-id',
      'apple',
      'gitlab',
      'discord',
      'okta',
      'auth0',
      'keycloak',
    ]
    expect([...BRANDED_IDS].sort()).toEqual([...ids, 'microsoft'].sort())
    const providers = [...ids.map((id) => provider(id, `Name ${id}`)), provider('corporate', 'Corporate SSO')]
    const res = await signin(themed(undefined, providers))
    const buttons = forms(res.text).map((form) => ({ text: form.buttons, html: form.html }))
    for (const [index, id] of ids.entries()) {
      const key = id === 'azure-ad' || id === 'microsoft-entra-id' ? 'microsoft' : id
      expect(buttons[index]!.text).toEqual([`Sign in with Name ${id}`])
      expect(buttons[index]!.html).toMatch(
        new RegExp(
          `<button type="submit" class="button brand brand-${key}"><svg class="brand-logo" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path d="[^"]+"`,
        ),
      )
    }
    // Any other provider keeps the plain button.
    expect(buttons.at(-1)!.html).toContain('<button type="submit" class="button">Sign in with Corporate SSO</button>')
    // Logos are markup, not images or styles: the CSP needs nothing more.
    expect(res.text).not.toMatch(/<img|\sstyle=|<style/)
    expect(res.headers['content-security-policy']).not.toMatch(/img-src|style-src 'unsafe/)
    const { css } = await stylesheet(themed(undefined))
    for (const key of ['google', 'github', 'microsoft', 'apple', 'gitlab', 'discord', 'okta', 'auth0', 'keycloak'])
      expect(css).toMatch(new RegExp(`\\.button\\.brand-${key}\\b[^{]*\\{`))
  })

  it('leave the e-mail form with the brand colour of the app, not of a provider', async () => {
    const { app } = makeApp({
      providers: [
        provider('google', 'Google'),
        email({ from: 'auth@example.com', sendVerificationRequest: () => undefined }),
      ],
      theme: { brandColor: 'teal' },
    })
    const [, mail] = forms((await signin(app)).text)
    expect(mail!.html).toContain('<button type="submit" class="button">Sign in with Email</button>')
  })
})
