import { mkdirSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { email, oidc, type AuthOptions } from '../../lib'
import { freeSite, makeApp, type Site } from '../support/app'
import { launchChromium } from '../support/chromium'

// The sign-in page in Chromium, in the reader's light and dark settings: the palette follows the
// setting unless `theme.colorScheme` holds one, the well-known providers wear their colours, the
// app's brandColor and buttonText colour its own buttons, the logo loads, and the page's CSP is
// never violated. Screenshots go to THEME_SCREENSHOTS (default: a folder in the OS's temp dir).

const SHOTS = process.env.THEME_SCREENSHOTS ?? path.join(tmpdir(), 'express-auth-service-theme')
const BRANDS = ['google', 'github', 'azure-ad', 'apple', 'gitlab', 'discord', 'okta', 'auth0', 'keycloak']
const NAMES: Record<string, string> = { 'azure-ad': 'Microsoft', github: 'GitHub', gitlab: 'GitLab', auth0: 'Auth0' }
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="32" viewBox="0 0 96 32"><rect width="96" height="32" rx="6" fill="#0f766e"/><text x="48" y="21" font-family="sans-serif" font-size="14" fill="#fff" text-anchor="middle">ACME</text></svg>`

let chromium: Browser
const servers: Server[] = []

beforeAll(async () => {
  chromium = await launchChromium()
  mkdirSync(SHOTS, { recursive: true })
}, 60_000)
afterAll(async () => {
  await chromium?.close()
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
})

async function serve(theme: AuthOptions['theme']): Promise<Site> {
  const site = await freeSite()
  const providers = [
    ...BRANDS.map((id) =>
      oidc({
        id,
        name: NAMES[id] ?? id[0]!.toUpperCase() + id.slice(1),
        issuer: 'https://idp.example.com',
        clientId: 'app',
        clientSecret: 'secret',
      }),
    ),
    email({ from: 'auth@example.com', sendVerificationRequest: () => undefined }),
  ]
  const { app } = makeApp({ url: site.base, providers, ...(theme && { theme }) })
  app.get('/logo.svg', (_req, res) => {
    res.type('image/svg+xml').send(LOGO)
  })
  await new Promise<void>((resolve) => servers.push(app.listen(site.port, '127.0.0.1', () => resolve())))
  return site
}

/** The sign-in page in a fresh tab with the reader's colour scheme; CSP violations fail the test. */
async function signinPage(site: Site, colorScheme: 'light' | 'dark', shot: string): Promise<Page> {
  const context = await chromium.newContext({ colorScheme, viewport: { width: 480, height: 1000 } })
  const violations: string[] = []
  await context.exposeBinding('__reportCspViolation', (_source, violation: string) => violations.push(violation))
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => window.__reportCspViolation(e.effectiveDirective + ' ' + e.blockedURI))`,
  })
  const page = await context.newPage()
  // Generous: beside the other specs on a loaded machine, a first page load took over 10 s once.
  page.setDefaultTimeout(30_000)
  await page.goto(`${site.base}/signin`, { waitUntil: 'load' })
  await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true })
  expect(violations).toEqual([])
  return page
}

/** The browser's own window, as far as these specs use it (the specs compile without the DOM's types). */
type Window = { getComputedStyle(element: unknown): { getPropertyValue(name: string): string } }
const css = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate(
      (element, name) => (globalThis as unknown as Window).getComputedStyle(element).getPropertyValue(name),
      property,
    )
const button = (name: string) => `button:has-text("Sign in with ${name}")`

describe('the sign-in page in Chromium', () => {
  it("follows the reader's colour scheme by default, with each well-known provider in its own colours", async () => {
    const site = await serve(undefined)
    const light = await signinPage(site, 'light', 'signin-light')
    expect(await css(light, 'body', 'background-color')).toBe('rgb(244, 244, 245)')
    expect(await css(light, button('Google'), 'background-color')).toBe('rgb(255, 255, 255)')
    expect(await css(light, button('Apple'), 'background-color')).toBe('rgb(0, 0, 0)')
    expect(await css(light, button('Discord'), 'background-color')).toBe('rgb(88, 101, 242)')
    expect(await css(light, button('Email'), 'background-color')).toBe('rgb(24, 24, 27)')
    // Every logo is drawn: an inline SVG of 20 × 20 pixels in each branded button.
    const logos = await light
      .locator('button.brand svg.brand-logo')
      .evaluateAll((svgs) => svgs.map((svg) => Math.round(svg.getBoundingClientRect().width)))
    expect(logos).toEqual(BRANDS.map(() => 20))

    const dark = await signinPage(site, 'dark', 'signin-dark')
    expect(await css(dark, 'body', 'background-color')).toBe('rgb(9, 9, 11)')
    expect(await css(dark, button('Google'), 'background-color')).toBe('rgb(19, 19, 20)')
    expect(await css(dark, button('Apple'), 'background-color')).toBe('rgb(255, 255, 255)')
    expect(await css(dark, button('Email'), 'background-color')).toBe('rgb(244, 244, 245)')
  })

  it('holds the colour scheme the app fixes, and shows its brand colour, button text colour and logo', async () => {
    const site = await serve({ colorScheme: 'dark', brandColor: '#0f766e', buttonText: '#ffffff', logo: '/logo.svg' })
    for (const reader of ['light', 'dark'] as const) {
      const page = await signinPage(site, reader, `signin-themed-reader-${reader}`)
      expect(await css(page, 'body', 'background-color')).toBe('rgb(9, 9, 11)')
      expect(await css(page, button('Email'), 'background-color')).toBe('rgb(15, 118, 110)')
      expect(await css(page, button('Email'), 'color')).toBe('rgb(255, 255, 255)')
      expect(await css(page, 'main.card', 'border-top-color')).toBe('rgb(15, 118, 110)')
      expect(
        await page.locator('img.logo').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      ).toBe(96)
    }
    const light = await serve({ colorScheme: 'light' })
    const page = await signinPage(light, 'dark', 'signin-light-reader-dark')
    expect(await css(page, 'body', 'background-color')).toBe('rgb(244, 244, 245)')
  })
})
