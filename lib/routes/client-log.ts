import type { LogLevel } from '../logger'
import { sendEmpty } from '../http/reply'
import type { Context } from './context'

const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['error', 'warn', 'debug'])

/**
 * POST /_log: the v4 client's log beacon. Anyone can send it, so it is treated as data: a level
 * from an allow-list, short strings only, and nothing else from the body.
 */
export async function clientLog(ctx: Context): Promise<void> {
  const { level, code, message } = ctx.body
  const safeLevel = typeof level === 'string' && LEVELS.has(level) ? (level as LogLevel) : 'debug'
  ctx.svc.log(safeLevel, 'client.log', 'the client reported a problem', { code: short(code, 64), clientMessage: short(message, 500) })
  sendEmpty(ctx.res, 200)
}

function short(value: unknown, max: number): string | undefined {
  return typeof value === 'string' ? value.slice(0, max) : undefined
}
