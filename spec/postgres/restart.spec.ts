/**
 * A PostgreSQL restart under the account store: while the server is down every call throws (and
 * the process carries on); once it is back the same store and pool answer again, with everything
 * it acknowledged before and during the restart. On a server of the spec's own (the machine's is
 * shared with other specs).
 */
import { randomBytes } from 'node:crypto'
import { postgresAccounts, type PostgresAccountStore } from '../../lib/features/accounts/postgres-store'
import type { StoredAccount, User } from '../../lib/features/accounts/store'
import { ownPostgres, type OwnPostgres } from '../support/postgres'

let server: OwnPostgres
let store: PostgresAccountStore
beforeAll(async () => {
  server = await ownPostgres()
  store = postgresAccounts(server.pool({ max: 4 }))
  await store.migrate()
})
afterAll(() => server?.close())

const signUp = (): [User, StoredAccount] => {
  const id = randomBytes(8).toString('hex')
  const user: User = { id, name: null, email: null, emailVerified: null, image: null, createdAt: new Date() }
  return [
    user,
    {
      id: `a${id}`,
      userId: id,
      provider: 'github',
      issuer: '',
      subject: id,
      type: 'oauth',
      label: null,
      linkedAt: new Date(),
      lastUsedAt: null,
      passwordHash: null,
    },
  ]
}

it.each(['fast', 'immediate'] as const)(
  'throws while the server is down (%s shutdown), then answers again with nothing lost',
  async (mode) => {
    const [ada, first] = signUp()
    await store.createUser(ada, first)
    await server.stop(mode)
    await expect(store.getUser(ada.id)).rejects.toThrow()
    const [bob, bobs] = signUp()
    await expect(store.createUser(bob, bobs)).rejects.toThrow()
    await server.start()
    expect(await store.getUser(ada.id)).toEqual(ada)
    expect(await store.listAccounts(ada.id)).toEqual([first])
    expect(await store.createUser(bob, bobs)).toEqual({ kind: 'created', user: bob, account: bobs })
  },
)

it('under load: calls fail while it restarts, then all succeed, and every acknowledged sign-up is kept', async () => {
  const acknowledged: User[] = []
  let failed = 0
  let running = true
  const worker = async () => {
    while (running) {
      const [user, account] = signUp()
      try {
        if ((await store.createUser(user, account)).kind === 'created') acknowledged.push(user)
      } catch {
        failed += 1
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  }
  const workers = Array.from({ length: 4 }, worker)
  await until(() => acknowledged.length >= 20)
  await server.stop()
  const before = failed
  await until(() => failed >= before + 4)
  await server.start()
  const healed = acknowledged.length
  await until(() => acknowledged.length >= healed + 20)
  running = false
  await Promise.all(workers)

  expect(failed).toBeGreaterThanOrEqual(4)
  const found = await Promise.all(acknowledged.map((user) => store.getUser(user.id)))
  expect(found).toEqual(acknowledged)
})

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
