import type { Context } from '../../core/context'
import { checkAnswer, readAnswer } from './answer'
import { authenticationOptions, type Expected } from './ceremony'
import { relyingParty, startCeremony, takeCeremony } from './challenge'
import type { PasskeyRuntime } from './runtime'

/**
 * A passkey as the second step of a sign-in that another feature holds (mfa: `{base}/mfa`). The
 * ceremony is limited to the held user's passkeys and bound to the held sign-in and this browser
 * (the challenge cookie and store of every ceremony, spent by the first answer); its answer is
 * checked as a passkey sign-in's is, the counter included, and must be one of that user's passkeys.
 */
export interface PasskeySecondStep {
  /** The passkey provider's id. */
  readonly providerId: string
  /** Whether the user has a passkey to answer with. */
  has(userId: string): Promise<boolean>
  /** Starts the ceremony for a held sign-in in this browser: the options for `navigator.credentials.get`. */
  start(ctx: Context, held: HeldStep): Promise<unknown>
  /** Spends this browser's ceremony and checks the request's `data` against it and the held sign-in. */
  finish(ctx: Context, held: HeldStep): Promise<SecondStepResult>
}

/** The held sign-in a second step answers for. */
export interface HeldStep {
  /** The held sign-in's own id: a ceremony started for one answers for no other. */
  readonly id: string
  readonly userId: string
  /**
   * The passkey must verify its user (PIN, biometrics): when the first factor was a passkey
   * already, a second touch of the same key would prove the same thing twice.
   */
  readonly verifyUser: boolean
}

/** What the passkey proved (RFC 8176 methods, `mfa` among them), or why it was refused (for the log). */
export type SecondStepResult =
  { readonly ok: true; readonly amr: string[] } | { readonly ok: false; readonly reason: string }

export function passkeySecondStep(runtime: PasskeyRuntime): PasskeySecondStep {
  const verification = (held: HeldStep) => (held.verifyUser ? 'required' : 'preferred')
  return Object.freeze({
    providerId: runtime.provider.id,
    async has(userId: string) {
      return (await runtime.store.listByUser(userId)).length > 0
    },
    async start(ctx: Context, held: HeldStep) {
      const passkeys = await runtime.store.listByUser(held.userId)
      const challenge = await startCeremony(ctx, runtime, {
        action: 'second-step',
        userId: held.userId,
        bound: held.id,
      })
      return authenticationOptions(relyingParty(ctx, runtime), challenge, verification(held), passkeys)
    },
    async finish(ctx: Context, held: HeldStep): Promise<SecondStepResult> {
      // Spent first, whatever happens next: an answer is tried once.
      const ceremony = await takeCeremony(ctx, runtime)
      if (ceremony?.action !== 'second-step' || ceremony.bound !== held.id || ceremony.userId !== held.userId)
        return { ok: false, reason: 'no second-step ceremony for this sign-in in this browser' }
      const data = readAnswer(ctx)
      if (data === null) return { ok: false, reason: 'a malformed answer' }
      const expected: Expected = {
        challenge: ceremony.challenge,
        rp: relyingParty(ctx, runtime),
        userVerification: verification(held),
      }
      const checked = await checkAnswer(ctx, runtime, data, expected, held.userId)
      if (!checked.ok) return checked
      return { ok: true, amr: secondStepMethods(checked.result) }
    },
  })
}

/**
 * What a passkey proved as a second step: its key (`hwk`, `swk`), and with the first factor two
 * (`mfa`); with user verification (`user`) it would have proved two by itself.
 */
function secondStepMethods(result: { userVerified: boolean; multiDevice: boolean }): string[] {
  const key = result.multiDevice ? 'swk' : 'hwk'
  return result.userVerified ? [key, 'user', 'mfa'] : [key, 'mfa']
}
