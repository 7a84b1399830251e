import { Browser } from '../support/browser'
import {
  GOOD,
  newAddress,
  passwordSignIn,
  sessionUser,
  signUp,
  startPasswordService,
  stopAll,
} from './password-harness'

afterEach(stopAll)

const REFUSED = (base: string) => ({
  status: 401,
  body: { url: `${base}/error?error=CredentialsSignin&provider=credentials` },
})

async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  return { status: res.status, body: await res.json() }
}

describe('password guessing slows an account down, and never locks its owner out', () => {
  it('twenty wrong passwords, then the right one: refused alike while the account waits, accepted once the delay is over', async () => {
    const service = await startPasswordService({ password: { throttle: { maxDelay: 2 } } })
    const address = newAddress()
    await signUp(service, new Browser(service), address, GOOD)
    const attacker = new Browser(service)
    for (let i = 0; i < 20; i++)
      expect(await answer(await passwordSignIn(service, attacker, address, `wrong guess number ${i}`))).toEqual(
        REFUSED(service.base),
      )
    // The right password during the slow-down: the very answer a wrong one gets.
    const during = new Browser(service)
    expect(await answer(await passwordSignIn(service, during, address, GOOD))).toEqual(REFUSED(service.base))
    expect(await sessionUser(service, during)).toBeNull()
    await new Promise((resolve) => setTimeout(resolve, 2200))
    const after = new Browser(service)
    expect((await passwordSignIn(service, after, address, GOOD)).status).toBe(200)
    expect(await sessionUser(service, after)).toMatchObject({ email: address })
  })

  it('a browser that signed in to the account before keeps its own count: failures elsewhere do not slow it', async () => {
    const service = await startPasswordService({ password: { throttle: { maxDelay: 300 } } })
    const address = newAddress()
    const owner = new Browser(service)
    await signUp(service, owner, address, GOOD)
    // Signed in with the password once: this browser is a known device of the account.
    expect((await passwordSignIn(service, owner, address, GOOD)).status).toBe(200)
    const attacker = new Browser(service)
    for (let i = 0; i < 15; i++) await passwordSignIn(service, attacker, address, `guess ${i} of the attacker`)
    expect(await answer(await passwordSignIn(service, new Browser(service), address, GOOD))).toEqual(
      REFUSED(service.base),
    )
    const again = await passwordSignIn(service, owner, address, GOOD)
    expect(again.status).toBe(200)
    expect(await sessionUser(service, owner)).toMatchObject({ email: address })
  })
})
