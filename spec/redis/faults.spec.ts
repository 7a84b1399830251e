import { randomBytes } from 'node:crypto'
import { connect, createServer, type Server } from 'node:net'
import Redis from 'ioredis'
import { Browser } from '../support/browser'
import { ownRedis, untilReady, type OwnRedis } from '../support/redis'
import {
  confirm,
  confirmForm,
  mailedLink,
  newAddress,
  openLink,
  requestLink,
  setsSession,
  startEmailService,
  stopAll,
  type EmailService,
} from '../support/email-harness'

// A redis-server of this spec's own, stopped and started again mid-test. storeTimeout is ten
// minutes: an answer that comes at all while Redis is down came without waiting in ioredis's
// offline queue (Jest's own timeout would end the spec first).
let server: OwnRedis
let client: Redis

beforeEach(async () => {
  server = await ownRedis()
  client = server.client()
  await untilReady(client)
})

afterEach(async () => {
  await stopAll()
  await server.close()
})

const OPTIONS = { session: { strategy: 'database' as const }, storeTimeout: 600_000 }

function start(): Promise<EmailService> {
  return startEmailService({}, { redis: client, ...OPTIONS })
}

/** A browser holding a database session cookie nobody issued. */
function withToken(service: EmailService): Browser {
  const browser = new Browser(service)
  browser.jar.set(service.origin, `auth.session-token=${randomBytes(32).toString('base64url')}; Path=/`)
  return browser
}

function unavailableLogs(service: EmailService) {
  return service.logs.filter((entry) => entry.event === 'store.unavailable')
}

it('builds without Redis, answers 503 while it is away (cookie kept, outage logged once), and recovers', async () => {
  await server.stop()
  const service = await start()
  const browser = withToken(service)
  const token = browser.cookie('auth.session-token')!.value
  for (let i = 0; i < 3; i++) {
    const res = await browser.jar.fetch(`${service.base}/session`)
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 503, body: {} })
  }
  expect(browser.cookie('auth.session-token')?.value).toBe(token)
  // A sign-in needs Redis too: the error page, and no mail.
  const asked = await requestLink(service, browser, newAddress())
  expect(asked.status).toBe(503)
  expect(await asked.text()).toContain('Service unavailable')
  expect(unavailableLogs(service)).toHaveLength(1)

  await server.start()
  await untilReady(client)
  // The unknown token is now known to be unknown: {} and the cookie cleared. Then a real sign-in.
  expect(await browser.session()).toEqual({})
  expect(browser.cookie('auth.session-token')).toBeUndefined()
  const address = newAddress()
  const link = await mailedLink(service, browser, address)
  const page = await openLink(service, browser, link)
  expect(setsSession(await confirm(service, browser, confirmForm(page).fields))).toBe(true)
  expect(await browser.session()).toMatchObject({ user: { email: address } })
  expect(service.logs.filter((entry) => entry.event === 'store.recovered')).toHaveLength(1)
  expect(unavailableLogs(service)).toHaveLength(1)
})

it('ends a sign-in that loses Redis half way on the error page, with no session', async () => {
  const service = await start()
  const browser = new Browser(service)
  const link = await mailedLink(service, browser, newAddress())
  const page = await openLink(service, browser, link)
  await server.stop()
  const res = await confirm(service, browser, confirmForm(page).fields)
  expect(res.status).toBe(503)
  expect(await res.text()).toContain('Service unavailable')
  expect(setsSession(res)).toBe(false)

  await server.start()
  await untilReady(client)
  expect(await browser.session()).toEqual({})
})

it('answers 503 at the deadline when Redis takes commands but never answers them, cookie kept', async () => {
  const service = await startEmailService({}, { redis: client, session: { strategy: 'database' }, storeTimeout: 200 })
  const browser = new Browser(service)
  const page = await openLink(service, browser, await mailedLink(service, browser, newAddress()))
  expect(setsSession(await confirm(service, browser, confirmForm(page).fields))).toBe(true)
  const token = browser.cookie('auth.session-token')!.value

  // Every client stalls for a minute: without a deadline, the read would outlive Jest's timeout.
  await server.client().client('PAUSE', 60_000, 'ALL')
  const res = await browser.jar.fetch(`${service.base}/session`)
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 503, body: {} })
  expect(browser.cookie('auth.session-token')?.value).toBe(token)
  expect(unavailableLogs(service).map((entry) => entry.message)).toEqual([expect.stringMatching(/no answer/)])
  await server.stop('SIGKILL')
})

/** A TCP proxy to `port` on loopback that holds every new connection for `delayMs` before passing it on. */
async function slowProxy(port: number, delayMs: number): Promise<Server> {
  const proxy = createServer((socket) => {
    setTimeout(() => {
      // A client that gave up while held (the service's tracking connection, when the app's client
      // is closed) is not connected on.
      if (socket.destroyed) return
      const upstream = connect(port, '127.0.0.1')
      socket.pipe(upstream).pipe(socket)
      upstream.on('error', () => socket.destroy())
      socket.on('error', () => upstream.destroy())
      socket.on('close', () => upstream.destroy())
    }, delayMs)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return proxy
}

it('answers the requests that come while the client is still connecting, once it is ready', async () => {
  // The app serves before its Redis connection is ready: as an app just started, or reconnected.
  const proxy = await slowProxy(server.port, 300)
  const port = (proxy.address() as { port: number }).port
  const connecting = new Redis({ host: '127.0.0.1', port, lazyConnect: true })
  try {
    const service = await startEmailService({}, { redis: connecting, session: { strategy: 'database' } })
    const browser = withToken(service)
    void connecting.connect().catch(() => undefined)
    expect(['connecting', 'connect']).toContain(connecting.status)
    const res = await browser.jar.fetch(`${service.base}/session`)
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: {} })
    expect(browser.cookie('auth.session-token')).toBeUndefined()
    expect(unavailableLogs(service)).toEqual([])
  } finally {
    connecting.disconnect()
    proxy.close()
  }
})
