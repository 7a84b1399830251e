import type { Cluster, Redis } from 'ioredis'
import type { RedisRunner } from '../redis'
import { heldValues, type HeldValues, type TrackedReads } from './held'
import { liveness, type Liveness } from './liveness'
import { LISTENER_OPTIONS, listen } from './tracking'

/**
 * The same client-side cache as ./tracking.ts on a Redis Cluster: one tracking connection of ours
 * per master, each running `CLIENT TRACKING … BCAST` for the same prefixes, since each master
 * announces changes to its own keys only. The trust rules hold for the whole: a value is answered
 * from memory only while every master ioredis knows of has tracking confirmed on our connection to
 * it and a PING has come back from each recently enough (./liveness.ts). Any
 * change of the masters (a failover, a node added or removed, seen as ioredis refreshes its slots
 * or once a second) drops everything held, and reads go to Redis until the new set is confirmed; a
 * node that stops saying it is a master (asked once a second) drops everything held too and makes
 * ioredis read the slots again.
 */
interface Node {
  /** The app's own connection to the master (ioredis's pool), and ours to it. */
  readonly node: Redis
  readonly listener: Redis
  readonly live: Liveness
  readonly reset: () => void
}

const TICK_MS = 1000

export function clusterTracking(
  redis: RedisRunner,
  prefixes: readonly string[],
  now: () => number = () => performance.now(),
): TrackedReads | null {
  const cluster = redis.client as Cluster
  if (!cluster.isCluster) return null
  const keyPrefix = cluster.options.keyPrefix ?? ''
  const nodes = new Map<string, Node>()
  /** Whether the nodes tracked are the masters ioredis knows now (as of the last sync). */
  let matched = false
  // On every hit of the hot path: no array, no closure.
  const each = (test: (live: Liveness) => boolean) => {
    if (!matched || nodes.size === 0) return false
    let all = true
    // Every node is asked (fresh() sends each its PING when due), not only up to the first refusal.
    for (const node of nodes.values()) if (!test(node.live)) all = false
    return all
  }
  const isTracked = (live: Liveness) => live.tracked()
  const isFresh = (live: Liveness) => live.fresh()
  const whole = {
    tracked: () => each(isTracked),
    fresh: () => each(isFresh),
    async freshSoon() {
      if (!matched || nodes.size === 0) return false
      const answers = await Promise.all([...nodes.values()].map((node) => node.live.freshSoon()))
      return answers.every(Boolean) && whole.tracked()
    },
  }
  const held = heldValues(redis, whole, now)
  const follow = followMasters(cluster, nodes, { keyPrefix, prefixes, held, now }, (value) => (matched = value))
  onTopology(cluster, follow)
  const ticker = setInterval(follow, TICK_MS)
  ticker.unref()
  follow()
  return held.reads
}

/**
 * Callbacks run on each change of a cluster client's topology: one listener of ours per client and
 * event, however many auth() share the client (a listener each would trip Node's warning at 11).
 */
const followers = new WeakMap<Cluster, Set<() => void>>()

function onTopology(cluster: Cluster, callback: () => void): void {
  let callbacks = followers.get(cluster)
  if (!callbacks) {
    const these = new Set<() => void>()
    callbacks = these
    followers.set(cluster, these)
    const all = () => {
      for (const each of these) each()
    }
    for (const event of ['refresh', '+node', '-node']) cluster.on(event, all)
  }
  callbacks.add(callback)
}

/** Keeps one connection of ours per master ioredis knows, while the cluster client is ready; `sync` runs it. */
function followMasters(
  cluster: Cluster,
  nodes: Map<string, Node>,
  setup: { keyPrefix: string; prefixes: readonly string[]; held: HeldValues; now: () => number },
  setMatched: (matched: boolean) => void,
) {
  const { keyPrefix, prefixes, held, now } = setup
  function add(key: string, node: Redis) {
    const listener = node.duplicate(LISTENER_OPTIONS)
    const live = liveness(() => listener.ping(), now)
    const reset = listen(listener, keyPrefix, prefixes, { live, held, now })
    nodes.set(key, { listener, live, reset, node })
    listener.connect().catch(() => undefined)
  }
  /**
   * Asks the app's own connection to the node (ours is subscribed: it may only PING) whether it is
   * still a master: one that is not (a failover that left it up) vouches for nothing from then on.
   */
  function checkRole(key: string, entry: Node) {
    entry.node.call('ROLE').then(
      (role: unknown) => {
        if (Array.isArray(role) && role[0] === 'master') return
        if (nodes.get(key) === entry) remove(key)
        held.flush()
        cluster.refreshSlotsCache()
      },
      () => undefined,
    )
  }
  function remove(key: string) {
    const node = nodes.get(key)
    nodes.delete(key)
    node?.reset()
    if (node && node.listener.status !== 'end') node.listener.disconnect()
  }
  return function sync() {
    if (cluster.status !== 'ready') {
      // Ours live only while the app's client is up (and end with it).
      setMatched(false)
      for (const key of [...nodes.keys()]) remove(key)
      return
    }
    const masters = new Map(cluster.nodes('master').map((node) => [`${node.options.host}:${node.options.port}`, node]))
    let changed = false
    for (const [key, node] of nodes) {
      // Gone from the masters, dropped (ours never reconnect by themselves), or silent for too long.
      if (masters.has(key) && node.listener.status !== 'end' && !node.live.stuck()) continue
      remove(key)
      changed = true
    }
    for (const [key, node] of masters) {
      if (nodes.has(key)) continue
      add(key, node)
      changed = true
    }
    if (changed) held.flush()
    setMatched(masters.size > 0)
    for (const [key, node] of nodes) {
      node.live.ping()
      checkRole(key, node)
    }
  }
}
