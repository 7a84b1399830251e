import type { Context } from '../../core/context'
import { decodeBase64url } from '../../infra/crypto/base64url'
import { mac } from '../../infra/crypto/mac'
import { randomToken } from '../../infra/crypto/random'
import { clearCookie, setCookie } from '../../infra/http/cookies'
import type { RelyingParty } from './ceremony'
import type { PasskeyRuntime } from './runtime'
import type { PasskeyUser } from './store'
import { parseJsonObject } from '../../infra/util/json'
import { isRecord } from '../../infra/util/object'

/**
 * A passkey ceremony in progress. Its challenge is random, kept on the server under the keyed hash
 * of a random id that only this browser holds (an HttpOnly cookie), spent by the first answer
 * (an atomic take, whichever instance gets it), and gone after `challengeMaxAge` seconds.
 */
export interface Ceremony {
  /** `second-step`: a passkey asked for a sign-in another feature holds (./second-step.ts). */
  readonly action: 'authenticate' | 'register' | 'second-step'
  /** base64url of 32 random bytes. */
  readonly challenge: string
  /** Registration: the new passkey's user handle. */
  readonly handle?: string
  /**
   * Registration by a signed-in user: who, so that the answer adds the passkey to that user only.
   * A second step: the held sign-in's user, whose passkeys alone may answer.
   */
  readonly userId?: string
  /** A second step: the id of the held sign-in it answers for, and for no other. */
  readonly bound?: string
  /** Registration: the user the passkey will sign in as. */
  readonly user?: PasskeyUser
}

/** Keeps a new ceremony and sets its cookie: the challenge to put in the options. */
export async function startCeremony(ctx: Context, runtime: PasskeyRuntime, ceremony: Omit<Ceremony, 'challenge'>) {
  const challenge = randomToken(32)
  const id = randomToken(32)
  const maxAge = runtime.provider.challengeMaxAge
  const value = JSON.stringify({ ...ceremony, challenge, expires: Date.now() + maxAge * 1000 })
  await runtime.challenges.put(mac(runtime.challengeKeys.current, id), value, maxAge * 1000)
  setCookie(ctx.res, ctx.cookieSet.webauthnChallenge, id, maxAge)
  return challenge
}

/**
 * Spends this browser's ceremony (its cookie is cleared too): the ceremony, or null when the
 * browser has none, it was spent or it has expired. Ids hashed under a rotated-out secret still count.
 */
export async function takeCeremony(ctx: Context, runtime: PasskeyRuntime): Promise<Ceremony | null> {
  const def = ctx.cookieSet.webauthnChallenge
  const id = ctx.cookies[def.name]
  if (id === undefined) return null
  clearCookie(ctx.res, def)
  if (typeof id !== 'string' || id.length !== 43 || decodeBase64url(id) === null) return null
  for (const key of runtime.challengeKeys.all) {
    const value = await runtime.challenges.take(mac(key, id))
    if (value !== null) return parseCeremony(value)
  }
  return null
}

function parseCeremony(value: string): Ceremony | null {
  const parsed = parseJsonObject(value)
  if (!parsed) return null
  const { action, challenge, handle, userId, bound, user, expires } = parsed
  if (action !== 'authenticate' && action !== 'register' && action !== 'second-step') return null
  if (typeof challenge !== 'string' || typeof expires !== 'number' || expires <= Date.now()) return null
  return {
    action,
    challenge,
    ...(typeof handle === 'string' ? { handle } : {}),
    ...(typeof userId === 'string' ? { userId } : {}),
    ...(typeof bound === 'string' ? { bound } : {}),
    ...(isRecord(user) ? { user: user as unknown as PasskeyUser } : {}),
  }
}

/**
 * The relying party, from `url`: its host is the RP ID, its origin the one a passkey's answer must
 * come from; a trusted origin on the same site counts too (WebAuthn lets a page there use that RP ID).
 */
export function relyingParty(ctx: Context, runtime: PasskeyRuntime): RelyingParty {
  const { hostname, host } = new URL(ctx.base.origin)
  const sameSite = [...ctx.svc.config.trustedOrigins].filter((origin) => {
    const other = new URL(origin).hostname
    return other === hostname || other.endsWith(`.${hostname}`)
  })
  return { id: hostname, name: runtime.provider.relyingPartyName ?? host, origins: [ctx.base.origin, ...sameSite] }
}

/** Logs why (never the answer itself) and sends the user to the sign-in page's error. */
export function refuse(ctx: Context, why: string): void {
  ctx.svc.log('warn', 'passkey.refused', `a passkey answer was refused: ${why}`)
  ctx.redirectToError('CredentialsSignin')
}
