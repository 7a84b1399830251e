import { join } from 'node:path'
import { connect as tcpConnect } from 'node:net'
import { startApp, type App } from '../support/app-process'
import {
  ownRedis,
  redisCluster,
  sharedRedis,
  stopSharedRedis,
  untilReady,
  type OwnRedis,
  type SharedRedis,
  type TestCluster,
} from '../support/redis'

// The Redis test support itself: the shared server, a server of the spec's own stopped and started
// again, a three-node cluster and an app in a child process, each against the real thing.

jest.setTimeout(60_000)

describe('sharedRedis', () => {
  let shared: SharedRedis

  beforeAll(async () => {
    shared = await sharedRedis()
  })

  afterAll(async () => {
    await shared.close()
    await stopSharedRedis()
  })

  it('answers PING, hands out distinct prefixes, and is the same server on a second call', async () => {
    expect(await shared.client().ping()).toBe('PONG')
    const [a, b] = [shared.prefix('ping'), shared.prefix('ping')]
    expect(a).toMatch(new RegExp(`^test:ping:${process.pid}:[0-9a-f]{12}:$`))
    expect(b).not.toBe(a)
    const again = await sharedRedis()
    expect(again.url).toBe(shared.url)
    await again.close()
  })

  it('deleteKeys deletes the keys of its prefix and nothing else', async () => {
    const mine = shared.prefix('glob?')
    const other = shared.prefix('other')
    // Matches `mine` as a glob pattern when `?` is not escaped.
    const lookalike = mine.replace('glob?', 'globX')
    const client = shared.client()
    const keys = Array.from({ length: 1200 }, (_, i) => `${mine}${i}`)
    await client.mset(...keys.flatMap((key) => [key, 'v']))
    await client.set(`${other}kept`, 'v')
    await client.set(`${lookalike}kept`, 'v')

    expect(await shared.deleteKeys(mine)).toBe(1200)
    expect(await client.exists(...keys)).toBe(0)
    expect(await client.get(`${other}kept`)).toBe('v')
    expect(await client.get(`${lookalike}kept`)).toBe('v')

    expect(await shared.deleteKeys(other)).toBe(1)
    expect(await shared.deleteKeys(lookalike)).toBe(1)
  })
})

describe('ownRedis', () => {
  let own: OwnRedis

  beforeAll(async () => {
    own = await ownRedis()
  })

  afterAll(() => own.close())

  it('fails commands once stopped and comes back on the same port, empty, once started', async () => {
    const client = own.client({ enableOfflineQueue: false })
    await untilReady(client)
    await client.set('k', 'v')
    const port = own.port

    await own.stop()
    await expect(client.ping()).rejects.toThrow()
    await expect(connect(port)).rejects.toThrow(/ECONNREFUSED/)

    await own.start()
    expect(own.port).toBe(port)
    await untilReady(client)
    expect(await client.ping()).toBe('PONG')
    expect(await client.get('k')).toBeNull()
  })
})

describe('redisCluster', () => {
  let cluster: TestCluster

  beforeAll(async () => {
    cluster = await redisCluster()
  })

  afterAll(() => cluster?.close())

  it('reports cluster_state:ok on every node and spreads keys over the three of them', async () => {
    expect(cluster.nodes).toHaveLength(3)
    const client = cluster.client()
    const keys = Array.from({ length: 30 }, (_, i) => `support:${i}`)
    for (const key of keys) await client.set(key, key)
    for (const key of keys) expect(await client.get(key)).toBe(key)

    const slots = await Promise.all(keys.map((key) => client.cluster('KEYSLOT', key)))
    expect(new Set(slots).size).toBeGreaterThan(20)
    const masters = client.nodes('master')
    expect(masters).toHaveLength(3)
    for (const node of masters) {
      expect(await node.cluster('INFO')).toMatch(/^cluster_state:ok\r?$/m)
      expect(await node.dbsize()).toBeGreaterThan(0)
    }
  })
})

describe('startApp', () => {
  let app: App | undefined

  afterAll(() => app?.stop())

  it('runs a TypeScript entry file in a child process and answers on the URL it printed', async () => {
    app = await startApp(join(__dirname, 'fixtures/echo-app.ts'), { ECHO: 'hello' })
    expect(app.url).toMatch(/^http:\/\/localhost:\d+$/)
    const response = await fetch(`${app.url}/path?x=1`)
    expect(await response.json()).toEqual({ method: 'GET', url: '/path?x=1', echo: 'hello' })
    expect(app.output()).toContain(`listening on ${app.url}`)
  })
})

/** Resolves when something accepts a TCP connection on the port (then closes it), else rejects. */
function connect(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1', () => {
      socket.end()
      resolve()
    })
    socket.once('error', reject)
  })
}
