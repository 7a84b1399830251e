import Redis from 'ioredis'
import { auth } from '../../lib'
import { SECRET, BASE } from '../support/app'
import { ownRedisForFile } from '../support/redis'
import { sleep } from '../support/tracking'

// Each auth() on one client opens a connection of its own, closed when the client ends.
// However many share the client, they add one 'end' listener to it, not one each (Node warns at 11).
jest.setTimeout(60_000)

const own = ownRedisForFile()

const connections = async (admin: Redis) =>
  String(await admin.client('LIST'))
    .trim()
    .split('\n').length
const options = (redis: Redis) => ({
  url: BASE,
  secret: SECRET,
  redis,
  session: { strategy: 'database' as const },
  logger: () => undefined,
})

it('closes the connection of every auth() on one client when the client ends, or at once when it had ended', async () => {
  const admin = own().client()
  const warnings: string[] = []
  const onWarning = (w: Error) => warnings.push(w.message)
  process.on('warning', onWarning)
  const before = await connections(admin)
  const app = new Redis({ port: own().port, host: '127.0.0.1' })
  for (let i = 0; i < 30; i++) auth(options(app))
  await sleep(500)
  const during = await connections(admin)
  await app.quit()
  await sleep(1500)
  const after = await connections(admin)
  // quit then auth() again on the ended client: it makes no connection.
  auth(options(app))
  await sleep(1500)
  const afterReuse = await connections(admin)
  process.off('warning', onWarning)
  expect(during).toBe(before + 31) // the app's client, and a connection for each auth()
  expect(warnings).toEqual([])
  expect(after).toBe(before)
  expect(afterReuse).toBe(before)
})
