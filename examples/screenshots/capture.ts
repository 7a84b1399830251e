/**
 * `npm run screenshots`: the built-in pages as the README and docs show them, taken from the built
 * demo in Debian's Chromium and written to docs/images/. Everything runs on loopback; the demo and
 * the browser are stopped whatever happens.
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

// This file runs from dist/examples/screenshots; the demo is built beside it.
const root = path.resolve(__dirname, '../../..')
const demoScript = path.resolve(__dirname, '../demo/server.js')
const outDir = path.join(root, 'docs/images')
const ADDRESS = 'alice@example.com'

interface Demo {
  origin: string
  base: string
  output(): string
  stop(): Promise<void>
}

/** Holds `port` (any, like the demo's own listen) if it is free: null if it is not. */
function hold(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(null))
      .listen(port, () => resolve(server))
  })
}

function release(servers: Server[]): Promise<unknown> {
  return Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
}

/**
 * The demo's and its identity provider's ports: the README's 3000 and 3001 when free, since the
 * verify-request page shows the host and the image should not change from run to run; else any two
 * ports free at the same moment, so they never coincide.
 */
async function demoPorts(): Promise<[number, number]> {
  let servers = await Promise.all([hold(3000), hold(3001)])
  if (servers.includes(null)) {
    await release(servers.filter((server) => server !== null))
    servers = await Promise.all([hold(0), hold(0)])
  }
  const held = servers.filter((server) => server !== null)
  if (held.length !== 2) throw new Error('found no two free ports for the demo')
  const ports = held.map((server) => (server.address() as { port: number }).port)
  await release(held)
  return ports as [number, number]
}

/**
 * The demo in a process group of its own (it spawns its identity provider), so one signal to the
 * group stops both. Every setting is given, so nothing from the caller's environment (a real
 * SMTP_URL, REDIS_URL or OIDC issuer) can send mail or traffic anywhere.
 */
async function startDemo(): Promise<Demo> {
  const [port, idpPort] = await demoPorts()
  const origin = `http://localhost:${port}`
  const base = `${origin}/api/auth`
  const child = spawn(process.execPath, [demoScript], {
    env: {
      ...process.env,
      PORT: String(port),
      DEMO_IDP_PORT: String(idpPort),
      SERVICE_AUTH_URL: base,
      SERVICE_AUTH_SECRET: randomBytes(32).toString('base64url'),
      SMTP_URL: '',
      REDIS_URL: '',
      EMAIL_FROM: '',
      OIDC_ISSUER: '',
      OIDC_CLIENT_ID: '',
      OIDC_CLIENT_SECRET: '',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal)
    } catch {
      // already gone
    }
  }
  // A crash or process.exit() anywhere in this script must not leave the demo running.
  const onExit = () => killGroup('SIGKILL')
  process.once('exit', onExit)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    killGroup('SIGTERM')
    const timer = setTimeout(() => killGroup('SIGKILL'), 5_000)
    await exited
    clearTimeout(timer)
    killGroup('SIGKILL') // the identity provider, should it outlive the demo
    process.off('exit', onExit)
  }
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not start within 30 s:\n${output}`)), 30_000)
    const onData = (data: Buffer) => {
      output += String(data)
      if (/listening on/.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`the demo stopped before listening (exit ${child.exitCode}):\n${output}`))
    })
  }).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  return { origin, base, output: () => output, stop }
}

/** Debian's Chromium, as spec/support/chromium.ts launches it (that file is not part of the build). */
function launchChromium(): Promise<Browser> {
  let executablePath: string
  try {
    executablePath = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim()
  } catch {
    throw new Error("no chromium on PATH (Debian's package: apt-get install chromium)")
  }
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * One page in a light theme at a fixed size, so the images do not change with the machine that
 * takes them, and no request that leaves loopback.
 */
async function openPage(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport: { width: 800, height: 600 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
  })
  await context.route('**/*', (route) =>
    LOOPBACK.has(new URL(route.request().url()).hostname) ? route.continue() : route.abort('blockedbyclient'),
  )
  const page = await context.newPage()
  // The main document may answer 4xx on purpose (the error page); its stylesheet never may.
  const problems: string[] = []
  page.on('response', (res) => {
    if (res.request().resourceType() !== 'document' && res.status() >= 400)
      problems.push(`${res.url()} answered ${res.status()}`)
  })
  page.on('requestfailed', (req) => problems.push(`${req.url()} failed: ${req.failure()?.errorText}`))
  return { page, problems }
}

interface Expected {
  heading: string
  /** The text of the sign-in page's alert box; none is allowed when absent. */
  alert?: string
  text?: string
}

/** Checks that the page in view is the one meant, styled and complete, then writes its PNG. */
async function capture(page: Page, problems: string[], file: string, expected: Expected): Promise<string> {
  const where = `${file} (${page.url()})`
  const heading = (await page.locator('h1').textContent())?.trim()
  if (heading !== expected.heading) throw new Error(`${where}: heading "${heading}", expected "${expected.heading}"`)
  const alerts = (await page.locator('[role=alert]').allTextContents()).map((text) => text.trim())
  const wanted = expected.alert === undefined ? [] : [expected.alert]
  if (JSON.stringify(alerts) !== JSON.stringify(wanted))
    throw new Error(`${where}: alerts ${JSON.stringify(alerts)}, expected ${JSON.stringify(wanted)}`)
  if (expected.text && !(await page.locator('main').innerText()).includes(expected.text))
    throw new Error(`${where}: "${expected.text}" is not on the page`)
  // The card's rounded corners come only from the service's stylesheet: proof that it applied.
  const radius = await page.evaluate<string>(
    "getComputedStyle(document.querySelector('main.card')).borderTopLeftRadius",
  )
  if (radius !== '12px') throw new Error(`${where}: the stylesheet did not apply (card radius "${radius}")`)
  if (problems.length > 0) throw new Error(`${where}: ${problems.join('; ')}`)
  const target = path.join(outDir, file)
  await page.screenshot({ path: target, animations: 'disabled', caret: 'hide' })
  return target
}

/** The line the demo's development mail transport prints for `address`: the link in it. */
async function printedLink(demo: Demo, address: string, after: number): Promise<string> {
  const prefix = `sign-in link for ${address}: `
  const deadline = Date.now() + 10_000
  for (;;) {
    const line = demo
      .output()
      .slice(after)
      .split('\n')
      .find((candidate) => candidate.includes(prefix))
    if (line) return line.slice(line.indexOf(prefix) + prefix.length).trim()
    if (Date.now() > deadline) throw new Error(`the demo printed no sign-in link for ${address}:\n${demo.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Every built-in page, in the order a visitor meets them; the sign-out page needs a session first. */
async function captureAll(demo: Demo, browser: Browser): Promise<string[]> {
  const { page, problems } = await openPage(browser)
  const written: string[] = []
  const visit = async (url: string) => {
    problems.length = 0
    await page.goto(url, { waitUntil: 'load' })
  }

  await visit(`${demo.base}/signin`)
  written.push(await capture(page, problems, 'signin.png', { heading: 'Sign in', text: 'Sign in with Demo' }))
  await visit(`${demo.base}/signin?error=OAuthSignin`)
  const alert = 'Try signing in with a different account.'
  written.push(await capture(page, problems, 'signin-error.png', { heading: 'Sign in', alert }))

  await visit(`${demo.base}/signin`)
  const printedSoFar = demo.output().length
  problems.length = 0
  await page.locator('#email').fill(ADDRESS)
  await Promise.all([
    page.waitForURL(/\/verify-request/),
    page.getByRole('button', { name: 'Sign in with Email' }).click(),
  ])
  written.push(await capture(page, problems, 'verify-request.png', { heading: 'Check your email' }))

  await visit(await printedLink(demo, ADDRESS, printedSoFar))
  const confirm = { heading: 'Sign in', text: `Continue signing in as ${ADDRESS}` }
  written.push(await capture(page, problems, 'email-confirm.png', confirm))
  await Promise.all([page.waitForURL(`${demo.origin}/`), page.getByRole('button', { name: 'Sign in' }).click()])
  if (!(await page.locator('main').innerText()).includes(`Signed in as ${ADDRESS}`))
    throw new Error(`confirming the e-mail link did not sign in: ${await page.locator('main').innerText()}`)

  await visit(`${demo.base}/signout`)
  const signOut = { heading: 'Sign out', text: 'Are you sure you want to sign out?' }
  written.push(await capture(page, problems, 'signout.png', signOut))
  await visit(`${demo.base}/error?error=Verification`)
  const error = { heading: 'Unable to sign in', text: 'The sign-in link is no longer valid.' }
  written.push(await capture(page, problems, 'error.png', error))
  return written
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true })
  const demo = await startDemo()
  let browser: Browser | undefined
  try {
    browser = await launchChromium()
    const written = await captureAll(demo, browser)
    for (const file of written)
      process.stdout.write(`screenshots: wrote ${path.relative(root, file)} (${statSync(file).size} bytes)\n`)
  } finally {
    await browser?.close().catch(() => undefined)
    await demo.stop()
  }
}

// Without these, Ctrl-C would end this script before the 'exit' hook that stops the demo.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)
  process.once(signal, () => process.exit(code))

main().catch((error: unknown) => {
  process.stderr.write(`screenshots: failed: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
