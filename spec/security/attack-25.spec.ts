import request from 'supertest'
import type { Response } from 'express'
import type { Session, SessionCallbackParams } from '../../lib'
import type { Callbacks, SessionRecord } from '../../lib/infra/config/types'
import { clientSession } from '../../lib/core/session/shape'
import { makeApp } from '../support/app'
import { clockAt } from '../support/clock'
import { ADA, SIGNED_IN_AT, VALID_AT, VECTORS, sessionCookie } from '../support/sessions'

// From an outside attack on issue 25's synchronous session callback (GET /session answers with no
// promise when the app's callback answers at once). Each case failed on the first version.
type App = ReturnType<typeof makeApp>['app']
const getSession = (app: App) => request(app).get('/api/auth/session').set('Cookie', sessionCookie(VECTORS.ada))

describe("odd answers of the app's session callback", () => {
  clockAt(VALID_AT)

  // `await` takes such an object for itself (its `then` is not callable); `instanceof Promise` did not.
  it('answers an object that inherits from Promise.prototype as the session, twice (was a 500)', async () => {
    const session = ({ session }: SessionCallbackParams): Session =>
      Object.assign(Object.create(Promise.prototype) as object, { ...session, then: null })
    const { app } = makeApp({ callbacks: { session } })
    for (let i = 0; i < 2; i++) {
      const res = await getSession(app)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ user: { email: ADA.email } })
    }
  })

  it('answers a Proxy that claims Promise.prototype as the session (was a 500)', async () => {
    const session = ({ session }: SessionCallbackParams): Session =>
      new Proxy({ ...session }, { getPrototypeOf: () => Promise.prototype })
    const { app } = makeApp({ callbacks: { session } })
    const res = await getSession(app)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ user: { email: ADA.email } })
  })

  it("hands what the callback throws, an Error or not, to the app's error handler as itself (was wrapped in an Error)", async () => {
    const thrown = { status: 403, reason: 'banned' }
    const session = (): Session => {
      // What an app may throw: not an Error.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw thrown
    }
    const { app, router } = makeApp({ callbacks: { session } })
    app.get('/private', router.requireAuth(), (_req, res) => void res.send('in'))
    let seen: unknown
    app.use((error: unknown, _req: unknown, res: Response, _next: unknown) => {
      seen = error
      res.status(403).send('handled')
    })
    const res = await request(app).get('/private').set('Cookie', sessionCookie(VECTORS.ada))
    expect(res.status).toBe(403)
    expect(seen).toBe(thrown)
  })

  it.each([
    [
      'throws an object with no prototype',
      () => {
        throw Object.create(null)
      },
    ],
    [
      'answers a Proxy revoked by reading its then',
      () => {
        const { proxy, revoke } = Proxy.revocable(
          {},
          {
            get: (_target, key) => {
              if (key === 'then') revoke()
              return undefined
            },
          },
        )
        return proxy
      },
    ],
  ])('rejects, never throws, when the callback %s', async (_case, session) => {
    const record: SessionRecord = {
      userId: 'u',
      user: ADA,
      createdAt: SIGNED_IN_AT,
      issuedAt: SIGNED_IN_AT,
      expiresAt: SIGNED_IN_AT + 3600,
    }
    let answer: unknown
    expect(() => (answer = clientSession(record, { session } as unknown as Callbacks, () => undefined))).not.toThrow()
    await expect(answer).rejects.toBeDefined()
  })
})
