import type { Context } from './context'
import { aalOf } from './session/record'
import type { SessionRecord } from '../infra/config/types'

/**
 * How much proof a change to the user's ways in needs (a password changed, an account linked or
 * unlinked, a factor added): the highest assurance any feature asks for this user (`Feature.
 * assurance`: mfa asks for two factors once the user enrolled one), 1 when none asks. So that no
 * cheaper way around the second factor is left, every such change checks `assured` first.
 */
export async function assuranceFor(ctx: Context, userId: string): Promise<1 | 2> {
  for (const feature of ctx.svc.features) if (feature.assurance && (await feature.assurance(userId)) === 2) return 2
  return 1
}

/** Whether the session proved enough for such a change of its user's. */
export async function assured(ctx: Context, record: SessionRecord): Promise<boolean> {
  return aalOf(record.amr) >= (await assuranceFor(ctx, record.userId))
}
