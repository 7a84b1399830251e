import type { Context } from '../../core/context'
import { open, seal } from '../../infra/crypto/jwe'
import { randomToken } from '../../infra/crypto/random'
import { setCookie } from '../../infra/http/cookies'
import type { PasswordRuntime } from './runtime'

/** Seconds a browser stays a known device of the account it last signed in to with a password. */
const DEVICE_SECONDS = 180 * 86_400

/**
 * The known-device cookie (`auth.known-device`, sealed): this browser signed in to the account
 * `a` (its keyed hash) with the right password. While that account is slowed down by failures
 * from elsewhere, this browser has a count of its own (OWASP's device cookies), so nobody can lock
 * the owner out by failing on purpose. The id of this browser for account `accountKey`, or null.
 */
export function knownDevice(ctx: Context, runtime: PasswordRuntime, accountKey: string | null): string | null {
  if (accountKey === null) return null
  const opened = open(runtime.keys.device, ctx.cookies[ctx.cookieSet.knownDevice.name])
  if (opened === null) return null
  const { a, d, exp } = opened
  const live = typeof exp === 'number' && exp * 1000 > Date.now()
  return live && a === accountKey && typeof d === 'string' && d.length <= 64 ? d : null
}

/** After the right password: this browser is a known device of the account (its id kept when it was one). */
export function rememberDevice(ctx: Context, runtime: PasswordRuntime, accountKey: string, known: string | null): void {
  const exp = Math.floor(Date.now() / 1000) + DEVICE_SECONDS
  const value = seal(runtime.keys.device.current, { a: accountKey, d: known ?? randomToken(16), exp })
  setCookie(ctx.res, ctx.cookieSet.knownDevice, value, DEVICE_SECONDS)
}
