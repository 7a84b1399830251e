import type { Context } from '../../core/context'
import type { Events } from '../../infra/config/types'
import { field } from '../../core/show-page'
import { factorInfo } from './factor-store'
import type { MfaRuntime } from './runtime'
import type { MfaHelpers } from './types'
import { enroller } from './who'
import { sendJson } from '../../infra/http/reply'
import type { Audit, AuditFacts } from '../../core/audit'

type MfaEvents = Pick<Events, 'factorRemoved'>

/**
 * Removes one of the user's factors, and their recovery codes with their last other factor (codes
 * alone are no second factor). `factorRemoved` runs for each. False: no such factor of this user.
 */
export async function removeUserFactor(
  runtime: MfaRuntime,
  userId: string,
  factorId: string,
  emit: (message: Parameters<NonNullable<MfaEvents['factorRemoved']>>[0]) => Promise<void>,
  report: (facts: AuditFacts) => void,
): Promise<boolean> {
  const all = await runtime.accounts.call((store) => store.listFactors!(userId))
  const factor = all.find(({ id }) => id === factorId)
  if (factor === undefined || !(await runtime.accounts.call((store) => store.removeFactor!(userId, factorId))))
    return false
  report({ event: 'factor.removed', userId })
  await emit({ userId, factor: factorInfo(factor) })
  const others = all.filter(({ id, type, enabled }) => id !== factorId && type !== 'recovery' && enabled)
  if (factor.type !== 'recovery' && others.length === 0)
    for (const codes of all.filter(({ type }) => type === 'recovery'))
      if (await runtime.accounts.call((store) => store.removeFactor!(userId, codes.id))) {
        report({ event: 'factor.removed', userId })
        await emit({ userId, factor: factorInfo(codes) })
      }
  return true
}

/** `POST /mfa/remove` (CSRF checked): `factorId`, by a recent sign-in made with a second factor. */
export async function remove(ctx: Context, runtime: MfaRuntime): Promise<void> {
  const who = await enroller(ctx, runtime, 'removing a second factor')
  if (who === null) return
  if (who.kind !== 'session') return ctx.redirectToError('Default', 404)
  const factorId = field(ctx, 'factorId', 256) ?? ''
  const removed = await removeUserFactor(
    runtime,
    who.userId,
    factorId,
    (message) => ctx.emit('factorRemoved', ctx.svc.config.events.factorRemoved, message),
    (facts) => ctx.audit(facts),
  )
  if (!removed) return ctx.redirectToError('Default', 404)
  ctx.svc.log('info', 'mfa.removed', 'a second factor was removed', ctx.svc.userForLog(who.userId))
  if (ctx.jsonMode) return sendJson(ctx.res, 200, JSON.stringify({ removed: factorId }))
  ctx.redirect(await ctx.callbackTarget())
}

/** `router.listFactors(userId)`, `router.removeFactor(userId, factorId)`. */
export function mfaHelpers(runtime: MfaRuntime | null, events: () => MfaEvents, audit: Audit): MfaHelpers {
  const need = (): MfaRuntime => {
    if (runtime === null) throw new Error('listFactors and removeFactor need the `mfa` option of auth()')
    return runtime
  }
  return {
    async listFactors(userId: string) {
      const all = await need().accounts.call((store) => store.listFactors!(userId))
      return all.filter(({ enabled }) => enabled).map(factorInfo)
    },
    async removeFactor(userId: string, factorId: string) {
      const emit = async (message: Parameters<NonNullable<MfaEvents['factorRemoved']>>[0]) => {
        try {
          await events().factorRemoved?.(message)
        } catch {
          // An app event never breaks the removal.
        }
      }
      return removeUserFactor(need(), userId, factorId, emit, (facts) => audit.record(facts))
    },
  }
}
