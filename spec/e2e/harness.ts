import { join } from 'node:path'
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core'
import { launchChromium } from '../support/chromium'
import { freePort, startProcess, type Started } from '../support/process'
import { startRangeServer, type RangeServer } from '../support/pwned-range'
import { startSmtp, type SmtpServer } from '../support/smtp'

/**
 * The demo app (examples/demo/server.ts) in a process of its own, with its embedded identity
 * provider on 127.0.0.1 (another site than the app on `localhost`) and, for the e-mail specs, a
 * mail server that keeps what it receives, and a local breached-password range API (BREACHED_RANGE_URL:
 * password() never asks the internet); and one Chromium per spec file, a context per test.
 */
export interface Demo {
  /** `http://localhost:<port>`: the app. */
  origin: string
  /** The auth service's URL: origin and base path. */
  base: string
  /** `http://127.0.0.1:<port>`: the embedded identity provider. */
  idp: string
  smtp: SmtpServer | null
  /** The demo's breached-password range API (spec/support/pwned-range.ts), on 127.0.0.1. */
  range: RangeServer
  /** Everything the demo printed so far. */
  output(): string
  /** Stops the demo and its identity provider (their process group); SIGKILL after 5 s. */
  stop(): Promise<void>
}

export interface DemoOptions {
  /** The path of SERVICE_AUTH_URL; the demo's default (`/api/auth`) when absent. */
  basePath?: string
  /** Start a mail server and give the demo its SMTP_URL. */
  smtp?: boolean
  /** Passwords the demo's range API knows as breached (none when absent). */
  breached?: readonly string[]
}

/** A browser tab whose page errors, console errors and CSP violations are kept, to fail the test. */
export interface Tab {
  context: BrowserContext
  page: Page
  /** A `status` the page at exactly `url` is expected to answer: its console line is no problem. */
  expectStatus(url: string, status: number): void
  /** The problems seen so far, which then no longer fail the test (for a spec of the watch itself). */
  takeProblems(): string[]
}

/**
 * Starts the demo and Chromium before the spec file's tests and stops both after them; after each
 * test, closes its tabs and fails it when any of them saw a problem. The answer is filled in by
 * the time the first test runs.
 */
export function useDemoInBrowser(options: DemoOptions = {}): { demo: Demo; newTab(): Promise<Tab> } {
  const state = { demo: undefined as Demo | undefined, chromium: undefined as Browser | undefined }
  const tabs: Array<{ context: BrowserContext; problems: string[] }> = []

  beforeAll(async () => {
    const [demo, chromium] = await Promise.allSettled([startDemo(options), launchChromium()])
    if (demo.status === 'fulfilled') state.demo = demo.value
    if (chromium.status === 'fulfilled') state.chromium = chromium.value
    if (demo.status === 'rejected') throw demo.reason
    if (chromium.status === 'rejected') throw chromium.reason
  }, 60_000)

  afterEach(async () => {
    const problems = tabs.splice(0).flatMap((tab) => tab.problems)
    await Promise.all(state.chromium?.contexts().map((context) => context.close()) ?? [])
    expect(problems).toEqual([])
  })

  afterAll(async () => {
    await state.chromium?.close()
    await state.demo?.stop()
  })

  return {
    get demo() {
      if (!state.demo) throw new Error('the demo is not running')
      return state.demo
    },
    async newTab() {
      if (!state.chromium || !state.demo) throw new Error('the browser is not running')
      const context = await state.chromium.newContext()
      const tab = { context, problems: [] as string[] }
      tabs.push(tab)
      const expected = new Map<string, number>()
      const page = await watch(context, state.demo, expected, tab.problems)
      return {
        context,
        page,
        expectStatus: (url, status) => expected.set(url, status),
        takeProblems: () => tab.problems.splice(0),
      }
    },
  }
}

async function startDemo(options: DemoOptions): Promise<Demo> {
  const [port, idpPort, smtp, range] = await Promise.all([
    freePort(),
    freePort(),
    options.smtp ? startSmtp() : null,
    startRangeServer({ breached: options.breached ?? [] }),
  ])
  const origin = `http://localhost:${port}`
  const base = `${origin}${options.basePath ?? '/api/auth'}`
  let demo: Started
  try {
    demo = await startProcess(process.execPath, ['--require', join(__dirname, 'esbuild-child.js'), DEMO], {
      env: {
        PORT: String(port),
        DEMO_IDP_PORT: String(idpPort),
        SERVICE_AUTH_URL: base,
        SERVICE_AUTH_SECRET: '',
        SMTP_URL: smtp?.url ?? '',
        EMAIL_FROM: '',
        REDIS_URL: '',
        // Accounts (and their second factors) in the demo's memory: each run starts with none.
        DATABASE_URL: '',
        BREACHED_RANGE_URL: range.url,
        OIDC_ISSUER: '',
        OIDC_CLIENT_ID: '',
        OIDC_CLIENT_SECRET: '',
      },
      ready: /listening on http/,
      timeoutMs: 30_000,
    })
  } catch (error) {
    await Promise.all([smtp?.close(), range.stop()])
    throw error
  }
  const stop = async () => {
    const killer = setTimeout(() => {
      try {
        process.kill(-demo.child.pid!, 'SIGKILL')
      } catch {
        // Gone in the meantime.
      }
    }, 5000)
    await demo.stop()
    clearTimeout(killer)
    await Promise.all([smtp?.close(), range.stop()])
  }
  return { origin, base, idp: `http://127.0.0.1:${idpPort}`, smtp, range, output: demo.output, stop }
}

const DEMO = join(__dirname, '../../examples/demo/server.ts')

const FAILED_LOAD = /^Failed to load resource: the server responded with a status of (\d{3})\b/

/**
 * Opens a page in `context` and keeps, in `problems`, every uncaught script error, console error
 * and Content-Security-Policy violation of its documents, whichever site they are on. Exempt:
 * a failed load of exactly a URL the test expects with that status, and a favicon that is missing
 * (404) on one of the demo's two origins.
 */
async function watch(context: BrowserContext, demo: Demo, expected: Map<string, number>, problems: string[]) {
  // Reported through a binding and an init script: both work on pages whose CSP forbids any script.
  await context.exposeBinding('__reportCspViolation', ({ frame }, violation: string) => {
    problems.push(`CSP violation on ${frame.url()}: ${violation}`)
  })
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => {
      window.__reportCspViolation(event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline') + ' (' + event.sourceFile + ':' + event.lineNumber + ')')
    })`,
  })
  const page = await context.newPage()
  // Well inside jest's 30 s, so that a step that never happens fails with Playwright's own message.
  page.setDefaultTimeout(10_000)
  page.on('pageerror', (error) => problems.push(`script error on ${page.url()}: ${error.message}`))
  page.on('console', (message) => {
    if (
      message.type() === 'error'
        ? !isExpected(message, demo, expected)
        : /Content.Security.Policy/i.test(message.text())
    )
      problems.push(`console ${message.type()} on ${page.url()}: ${message.text()} (${message.location().url})`)
  })
  return page
}

function isExpected(message: ConsoleMessage, demo: Demo, expected: Map<string, number>): boolean {
  const status = FAILED_LOAD.exec(message.text())?.[1]
  if (status === undefined) return false
  const url = message.location().url
  if (expected.get(url) === Number(status)) return true
  return status === '404' && [`${demo.origin}/favicon.ico`, `${demo.idp}/favicon.ico`].includes(url)
}

/** The natural width of the page's picture once loaded (0 when it did not load). */
export const pictureWidth = (page: import('playwright-core').Page) =>
  page.evaluate(`(async () => {
    const image = document.querySelector('main img')
    return image.decode().then(() => image.naturalWidth, () => 0)
  })()`)
