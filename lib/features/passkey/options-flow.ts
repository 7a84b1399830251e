import type { Context } from '../../core/context'
import { randomToken } from '../../infra/crypto/random'
import { sendJson } from '../../infra/http/reply'
import { hasControls } from '../../infra/logger'
import { authenticationOptions, registrationOptions } from './ceremony'
import type { PasskeyRuntime } from './runtime'
import { relyingParty, startCeremony } from './challenge'
import { assured } from '../../core/assurance'
import { logSignInAgain, signInAgainUrl, signedInRecently } from './recent'

/**
 * GET /webauthn-options/:provider, what NextAuth v5's passkey client asks first: `action=register`
 * (a signed-in user adds a passkey; or, with `signUp`, a visitor creates an account with one),
 * anything else absent or `authenticate` (sign in with a discoverable credential). Answers
 * `{ action, options }` and sets the ceremony's cookie. The client reads only `ok`, so a refusal is
 * a 400 with `{ error }`, as Auth.js answers; a session signed in longer ago than
 * `registrationMaxAge` gets `401 { error: 'SessionRequired', url }`, the sign-in page to go to first
 * (the service's passkey script goes there; the v5 client logs the answer).
 */
export async function passkeyOptions(ctx: Context, runtime: PasskeyRuntime): Promise<void> {
  const action = ctx.query.get('action')
  if (action !== null && action !== 'authenticate' && action !== 'register') return refuse(ctx, 'Invalid action')
  const rp = relyingParty(ctx, runtime)
  const { userVerification } = runtime.provider
  if (action !== 'register') {
    const challenge = await startCeremony(ctx, runtime, { action: 'authenticate' })
    return answer(ctx, 'authenticate', await authenticationOptions(rp, challenge, userVerification))
  }
  const record = await ctx.svc.sessions.read(ctx.sessionCookie())
  if (record) {
    if (!signedInRecently(record, runtime) || !(await assured(ctx, record))) {
      logSignInAgain(ctx, record, 'options request')
      return sendJson(ctx.res, 401, JSON.stringify({ error: 'SessionRequired', url: await signInAgainUrl(ctx) }), true)
    }
    const { userId } = record
    const user = { name: record.user.name ?? null, email: record.user.email ?? null, image: record.user.image ?? null }
    const handle = await runtime.store.userHandle(userId, randomToken(32))
    const challenge = await startCeremony(ctx, runtime, { action: 'register', handle, userId, user })
    const label = user.email ?? user.name ?? userId
    const options = await registrationOptions(
      rp,
      { handle, name: label, displayName: user.name ?? label },
      challenge,
      userVerification,
      await runtime.store.listByUser(userId),
    )
    return answer(ctx, 'register', options)
  }
  if (!runtime.provider.signUp) return refuse(ctx, 'Invalid request')
  // A new account: the name only tells this passkey from others in the authenticator's list. It
  // is the visitor's own text, so it never becomes the session's e-mail address.
  const name = displayName(ctx.query.get('name') ?? ctx.query.get('email'))
  const handle = randomToken(32)
  const user = { name, email: null, image: null }
  const challenge = await startCeremony(ctx, runtime, { action: 'register', handle, user })
  const options = await registrationOptions(rp, { handle, name, displayName: name }, challenge, userVerification, [])
  answer(ctx, 'register', options)
}

function displayName(text: string | null): string {
  const trimmed = text?.trim() ?? ''
  return trimmed === '' || trimmed.length > 64 || hasControls(trimmed) ? 'Passkey' : trimmed
}

function answer(ctx: Context, action: 'authenticate' | 'register', options: unknown): void {
  sendJson(ctx.res, 200, JSON.stringify({ action, options }), true)
}

function refuse(ctx: Context, error: string): void {
  sendJson(ctx.res, 400, JSON.stringify({ error }), true)
}
