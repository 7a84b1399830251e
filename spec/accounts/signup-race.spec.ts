import { postgresAccounts } from '../../lib'
import { Browser } from '../support/browser'
import { idpLogin } from '../support/idp-login'
import { postgresForFile } from '../support/postgres'
import { startAccounts, startSignIn, type AccountsHarness } from './accounts-harness'

// Twenty first sign-ins of one new identity at once make one user, and every one of them signs in
// as it: with PostgreSQL, whose unique constraints may report the verified address before the
// identity (the user's row is written before the account's), the losers must not take the
// confirm path against the winner, which is their own user.
const pg = postgresForFile('accounts_signup_race')

let h: AccountsHarness
beforeAll(async () => {
  const store = postgresAccounts(pg.pool({ max: 20 }))
  await store.migrate()
  h = await startAccounts({ store })
})
afterAll(() => h?.stop())

it('signs twenty browsers in as one new user when they come back from the IdP at once', async () => {
  const browsers = Array.from({ length: 20 }, () => new Browser(h))
  const callbacks = await Promise.all(
    browsers.map(async (browser) => {
      const started = await startSignIn(h, browser, 'oidc')
      return idpLogin(new URL(started.headers.get('location')!), { jar: browser.jar, login: 'alice' })
    }),
  )
  const answers = await Promise.all(callbacks.map((callback, i) => browsers[i]!.returnTo(callback)))
  expect(answers.map((answer) => answer.headers.get('location'))).toEqual(browsers.map(() => `${h.origin}/welcome`))
  const users = new Set(await Promise.all(browsers.map((browser) => h.whoami(browser))))
  expect(users.size).toBe(1)
  const [userId] = [...users] as [string]
  expect(await h.waysIn(userId)).toEqual(['oidc'])
  expect(h.events.filter(({ name }) => name === 'userCreated')).toHaveLength(1)
})
