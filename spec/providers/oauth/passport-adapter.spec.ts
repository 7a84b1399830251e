import type { Request } from 'express'
import { Passport, Strategy } from 'passport'
import { runStrategy } from '../../../lib/features/oauth/passport/adapter'

type Actions = Pick<Strategy & InstanceType<typeof Strategy>, 'success' | 'fail' | 'redirect' | 'pass' | 'error'>
type Script = (strategy: Actions, req: Request & Record<PropertyKey, unknown>, options: Record<string, unknown>) => void

/** A Passport strategy that plays `script` with the actions, request and options Passport gives it. */
class ScriptedStrategy extends Strategy {
  constructor(private readonly script: Script) {
    super()
  }

  override authenticate(req: Request, options?: Record<string, unknown>): void {
    this.script(this, req as Request & Record<PropertyKey, unknown>, options ?? {})
  }
}

/** The host app's request, as a plain object: anything added to it shows in its own keys. */
const hostRequest = () => ({
  method: 'GET',
  url: '/api/auth/callback/scripted?code=c',
  headers: { host: 'localhost:3000' },
  query: { code: 'c' },
})

function run(
  script: Script,
  options: Record<string, unknown> = {},
  extra?: Record<PropertyKey, unknown>,
  req: object = hostRequest(),
) {
  const passport = new Passport()
  passport.use('scripted', new ScriptedStrategy(script))
  return runStrategy(passport, 'scripted', req as Request, options, extra)
}

describe("runStrategy: each of Passport's five actions becomes one tagged result", () => {
  it('success → { kind: success, user, info }', async () => {
    await expect(run((s) => s.success({ id: 'alice' }, { state: 'the-flow' }))).resolves.toStrictEqual({
      kind: 'success',
      user: { id: 'alice' },
      info: { state: 'the-flow' },
    })
  })

  it('fail → { kind: fail, challenge, status }, with status only when the strategy gave one', async () => {
    await expect(run((s) => s.fail({ message: 'the state did not match' }, 403))).resolves.toStrictEqual({
      kind: 'fail',
      challenge: { message: 'the state did not match' },
      status: 403,
    })
    await expect(run((s) => s.fail({ message: 'no code' }))).resolves.toStrictEqual({
      kind: 'fail',
      challenge: { message: 'no code' },
    })
  })

  it('redirect → { kind: redirect, url }, caught instead of sent', async () => {
    const url = 'https://idp.example.com/authorize?client_id=app&state=s'
    await expect(run((s) => s.redirect(url))).resolves.toStrictEqual({ kind: 'redirect', url })
  })

  it('pass → { kind: pass }', async () => {
    await expect(run((s) => s.pass())).resolves.toStrictEqual({ kind: 'pass' })
  })

  it('error → { kind: error, error }', async () => {
    const error = new Error('the token endpoint answered 500')
    await expect(run((s) => s.error(error))).resolves.toStrictEqual({ kind: 'error', error })
  })

  it('waits for an action taken later (after I/O)', async () => {
    const result = run((s) => {
      setTimeout(() => s.success({ id: 'alice' }, undefined), 5)
    })
    await expect(result).resolves.toMatchObject({ kind: 'success', user: { id: 'alice' } })
  })

  it('turns a strategy that throws into { kind: error }', async () => {
    const error = new TypeError('strategy bug')
    await expect(
      run(() => {
        throw error
      }),
    ).resolves.toStrictEqual({ kind: 'error', error })
  })

  it('turns an unknown strategy name into { kind: error }', async () => {
    const result = await runStrategy(new Passport(), 'missing', hostRequest() as unknown as Request, {})
    expect(result).toStrictEqual({
      kind: 'error',
      error: expect.objectContaining({ message: expect.stringContaining('Unknown authentication strategy "missing"') }),
    })
  })
})

describe('runStrategy: the request the strategy sees', () => {
  it('passes the options on, with sessions off', async () => {
    let seen: Record<string, unknown> = {}
    await run(
      (s, _req, options) => {
        seen = options
        s.pass()
      },
      { callbackURL: 'http://localhost:3000/api/auth/callback/scripted', scope: 'openid' },
    )
    expect(seen).toEqual({
      callbackURL: 'http://localhost:3000/api/auth/callback/scripted',
      scope: 'openid',
      session: false,
    })
  })

  it('leaves the host request as it was: Passport adds login, logout and isAuthenticated to a delegate only', async () => {
    const req = hostRequest()
    const before = { keys: Reflect.ownKeys(req), values: JSON.parse(JSON.stringify(req)) as unknown }
    let delegate: Record<PropertyKey, unknown> = {}
    await run(
      (s, seenReq) => {
        delegate = seenReq
        s.success({ id: 'alice' }, undefined)
      },
      {},
      {},
      req,
    )

    expect(typeof delegate.login).toBe('function')
    expect(typeof delegate.isAuthenticated).toBe('function')
    expect(Object.getPrototypeOf(delegate)).toBe(req)
    expect(Reflect.ownKeys(req)).toEqual(before.keys)
    expect(req).toEqual(before.values)
    for (const added of [
      'login',
      'logIn',
      'logout',
      'logOut',
      'isAuthenticated',
      'isUnauthenticated',
      '_sessionManager',
    ])
      expect(added in req).toBe(false)
  })

  it("shows the strategy the host request's own properties and the extra ones, Symbol keys included", async () => {
    const FLOW_CHECK = Symbol('flow check')
    const check = () => null
    let seen: Record<string, unknown> = {}
    await run(
      (s, req) => {
        seen = { url: req.url, query: req.query, body: req.body, check: req[FLOW_CHECK] }
        s.pass()
      },
      {},
      { [FLOW_CHECK]: check, body: { code: 'from-the-form-post' } },
    )
    expect(seen).toEqual({
      url: '/api/auth/callback/scripted?code=c',
      query: { code: 'c' },
      body: { code: 'from-the-form-post' },
      check,
    })
  })
})
