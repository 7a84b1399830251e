import session from 'express-session'
import { oidc, type AuthOptions } from '../../lib'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'
import { ownRedisForFile } from '../support/redis'

/**
 * A back-channel logout that fails on our side is not lost: when the session store fails (an app's
 * store whose delete throws once; a real Redis that does not answer while the logout token is
 * posted), the answer is the 400 the specification gives a failed logout, `no-store`, and the
 * logout token is not spent, so the provider's retry of the same token ends the sessions. Once it
 * did, the same token again is refused as a replay.
 */

const EVENT = 'http://schemas.openid.net/event/backchannel-logout'
const getOwnRedis = ownRedisForFile()

let issuer: HostileIssuer
let counter = 0

beforeAll(async () => {
  issuer = await startHostileIssuer()
})

afterAll(async () => {
  await issuer.stop()
})

afterEach(() => issuer.reset())

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One logout token naming `names`, as the provider signs it (the same token is posted again on a retry). */
async function logoutToken(names: { sid?: string; sub?: string }): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  const claims = { iss: issuer.issuer, aud: issuer.clientId, iat: now, jti: `retry-${now}-${counter++}` }
  return issuer.sign({ ...claims, events: { [EVENT]: {} }, ...names }, { typ: 'logout+jwt' })
}

/** The provider's server posts `token` to the app's back-channel logout route. */
function post(app: Served, token: string): Promise<Response> {
  return fetch(`${app.base}/backchannel-logout/hostile`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: token }),
  })
}

async function serveWith(options: AuthOptions): Promise<Served> {
  return serve({
    providers: [
      oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
    ],
    ...options,
  })
}

async function signedInThrough(app: Served, sid: string): Promise<Browser> {
  const browser = new Browser(app)
  issuer.behave({ idTokenClaims: { sid } })
  expect((await browser.signIn('hostile')).status).toBe(302)
  expect((await browser.session()).user).toMatchObject({ email: 'alice@example.com' })
  return browser
}

const refusals = (app: Served) => app.logs.filter((entry) => entry.event === 'backchannel_logout.refused')

it("an app's session store whose delete fails once: the provider's retry ends the session, a replay is refused", async () => {
  const store = new session.MemoryStore()
  let failNext = false
  const destroy = store.destroy.bind(store)
  store.destroy = (sid, callback) => {
    if (!failNext) return destroy(sid, callback)
    failNext = false
    callback?.(new Error('the database is down'))
  }
  const app = await serveWith({ session: { strategy: 'database', store } })
  try {
    const laptop = await signedInThrough(app, 'laptop-session')
    const token = await logoutToken({ sid: 'laptop-session' })

    failNext = true
    const failed = await post(app, token)
    expect(failed.status).toBe(400)
    expect(failed.headers.get('cache-control')).toContain('no-store')
    const failure = refusals(app).at(-1)?.message
    expect((await laptop.session()).user).toMatchObject({ email: 'alice@example.com' })

    // The provider sends the same logout token again: this time it is done.
    expect((await post(app, token)).status).toBe(200)
    expect(await laptop.session()).toEqual({})
    expect(failure).toContain('the provider may send it again')

    // The same token once more, after it was done: a replay.
    expect((await post(app, token)).status).toBe(400)
    expect(refusals(app).at(-1)?.message).toContain('replay')
  } finally {
    await app.close()
  }
})

it("a real Redis that does not answer while the token is posted: the provider's retry ends the sessions, a replay is refused", async () => {
  const redis = getOwnRedis()
  const admin = redis.client()
  const app = await serveWith({ redis: redis.client(), storeTimeout: 300, session: { revocationDelay: 0 } })
  try {
    const laptop = await signedInThrough(app, 'laptop-session-2')
    const token = await logoutToken({ sid: 'laptop-session-2', sub: 'alice' })

    // Redis holds every command for 1.5 s: each of the logout's times out, and runs once Redis is back.
    await admin.call('CLIENT', 'PAUSE', '1500', 'ALL')
    const failed = await post(app, token)
    expect(failed.status).toBe(400)
    expect(failed.headers.get('cache-control')).toContain('no-store')
    await sleep(1700)
    expect((await laptop.session()).user).toMatchObject({ email: 'alice@example.com' })

    expect((await post(app, token)).status).toBe(200)
    expect(await laptop.session()).toEqual({})
    expect((await post(app, token)).status).toBe(400)
    expect(refusals(app).at(-1)?.message).toContain('replay')
  } finally {
    await app.close()
  }
})
