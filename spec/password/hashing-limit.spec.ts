import { Browser } from '../support/browser'
import { GOOD, newAddress, signUp, startPasswordService, stopAll } from './password-harness'

afterEach(stopAll)

describe('password hashing cannot take the process down', () => {
  it('500 sign-ins at once: past the hashing limit 429 with Retry-After, and GET /session is served all along', async () => {
    const service = await startPasswordService({ password: { hashing: { concurrency: 2, queue: 8, wait: 2000 } } })
    const address = newAddress()
    const member = new Browser(service)
    await signUp(service, member, address, GOOD)
    const attacker = new Browser(service)
    const token = await attacker.csrfToken()
    const body = () =>
      new URLSearchParams({ email: address, password: `wrong ${Math.random()}`, csrfToken: token, json: 'true' })
    let stormOver = false
    const storm = Promise.all(
      Array.from({ length: 500 }, () =>
        attacker.jar
          .fetch(`${service.base}/callback/credentials`, { method: 'POST', body: body() })
          .then(async (res) => ({
            status: res.status,
            retryAfter: res.headers.get('retry-after'),
            text: await res.text(),
          })),
      ),
    ).finally(() => {
      stormOver = true
    })
    // The signed-in member's GET /session, meanwhile: answered, and long before the storm is over.
    const sessions: Array<{ status: number; during: boolean }> = []
    await new Promise((resolve) => setTimeout(resolve, 20))
    for (let i = 0; i < 5; i++) {
      const res = await member.jar.fetch(`${service.base}/session`)
      const json = (await res.json()) as { user?: { email?: string } }
      sessions.push({ status: json.user?.email === address ? res.status : -1, during: !stormOver })
    }
    const answers = await storm
    expect(sessions).toEqual(Array.from({ length: 5 }, () => ({ status: 200, during: true })))
    const statuses = answers.map(({ status }) => status)
    const busy = answers.filter(({ status }) => status === 429)
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(10)
    // Most of the storm is turned away at once (how many get a slot as others finish depends on how
    // fast the 500 requests arrive, which the machine's load decides).
    expect(busy.length).toBeGreaterThan(250)
    expect(new Set(statuses)).toEqual(new Set([401, 429]))
    expect(busy.every(({ retryAfter }) => retryAfter === '1')).toBe(true)
  })
})
