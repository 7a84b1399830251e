import { clientKey } from '../../infra/http/client-key'
import type { LogLevel } from '../../infra/logger'
import { sendEmpty } from '../../infra/http/reply'
import type { Context } from '../context'

/** Browsers report what went wrong; none of it is ours to shout about, so `warn` is the ceiling. */
const LEVELS: ReadonlyMap<string, LogLevel> = new Map([
  ['error', 'warn'],
  ['warn', 'warn'],
  ['debug', 'debug'],
])

/**
 * POST /_log: the v4 client's log beacon. Anyone can send it, so it is treated as data: a small
 * body, a few entries a minute per client IP (`req.ip`, which honours the app's `trust proxy`), a
 * level from the client's three (anything else: 400, nothing logged) and never above `warn`, short strings only, and `source: 'client'` on
 * every entry so that nobody mistakes it for the service's own.
 */
export async function clientLog(ctx: Context): Promise<void> {
  const { level, code, message } = ctx.body
  // Only the levels the client sends: anything else is not the client's beacon, and costs no count.
  const safeLevel = typeof level === 'string' ? LEVELS.get(level) : undefined
  if (safeLevel === undefined) return sendEmpty(ctx.res, 400)
  const refusal = await overLimit(ctx)
  if (refusal !== null) return sendEmpty(ctx.res, 429, { 'Retry-After': String(refusal) })
  ctx.svc.log(safeLevel, 'client.log', 'the client reported a problem', {
    source: 'client',
    code: short(code, 64),
    clientMessage: short(message, 500),
  })
  sendEmpty(ctx.res, 200)
}

/** Seconds to wait when this client has sent too many entries (or the counter is unreachable), else null. */
async function overLimit(ctx: Context): Promise<number | null> {
  try {
    return await ctx.svc.clientLogLimiter.consume(clientKey(ctx.req.ip))
  } catch {
    // The counters are down (a 503 elsewhere): an unthrottled beacon is what the limit exists to prevent.
    return 60
  }
}

function short(value: unknown, max: number): string | undefined {
  return typeof value === 'string' ? value.slice(0, max) : undefined
}
