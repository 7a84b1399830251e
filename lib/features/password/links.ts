import { open, seal } from '../../infra/crypto/jwe'
import { mac } from '../../infra/crypto/mac'
import { randomToken } from '../../infra/crypto/random'
import type { PasswordRuntime } from './runtime'

/** What a password link is for: confirming an address to create the account, or setting a new password. */
export type LinkPurpose = 'signup' | 'reset'

/**
 * Password links are kept as e-mail sign-in links are (the e-mail provider's store, one use,
 * atomically taken), under a key of their own: HMAC(token, purpose, address) with the password
 * link key, so no sign-in link is ever a reset link or the reverse. What the link carries (the new
 * account's password hash, the user to reset) is sealed in the record's `data`: a dump of the
 * store holds neither a usable token nor a readable detail.
 */
function linkKey(key: Buffer, purpose: LinkPurpose, token: string, identifier: string): string {
  return mac(key, purpose, token, identifier)
}

/** Keeps a new link for `identifier`: its token (only the mail will hold it) and its store key. */
export async function keepLink(
  runtime: PasswordRuntime,
  purpose: LinkPurpose,
  identifier: string,
  payload: Record<string, unknown>,
  maxAge: number,
): Promise<{ token: string; key: string; expires: number }> {
  const store = storeOf(runtime)
  const token = randomToken(32)
  const expires = Math.floor(Date.now() / 1000) + maxAge
  const key = linkKey(runtime.keys.token.current, purpose, token, identifier)
  const data = seal(runtime.keys.link.current, { ...payload, p: purpose, i: identifier })
  await store.put(key, { identifier, expires, data })
  return { token, key, expires }
}

/** Forgets a link whose mail did not go out. */
export async function dropLink(runtime: PasswordRuntime, key: string): Promise<void> {
  await storeOf(runtime)
    .remove(key)
    .catch(() => undefined)
}

/**
 * Spends the link once: what it carries, or null when there is none for this purpose, token and
 * address (never made, spent, expired, for another address, or another purpose).
 */
export async function spendLink(
  runtime: PasswordRuntime,
  purpose: LinkPurpose,
  token: string,
  identifier: string,
): Promise<Record<string, unknown> | null> {
  const store = storeOf(runtime)
  for (const key of runtime.keys.token.all) {
    const record = await store.take(linkKey(key, purpose, token, identifier))
    if (record === null) continue
    if (record.identifier !== identifier || record.expires * 1000 <= Date.now()) return null
    const data = open(runtime.keys.link, record.data)
    if (data !== null) data.e = record.expires
    return data !== null && data.p === purpose && data.i === identifier ? data : null
  }
  return null
}

/**
 * Puts a link spent by `spendLink` back as it was (same token, same end): a sign-up link whose
 * confirm form was posted with another password than the one chosen at sign-up stays usable.
 */
export async function restoreLink(
  runtime: PasswordRuntime,
  purpose: LinkPurpose,
  token: string,
  identifier: string,
  data: Record<string, unknown>,
  expires: number,
): Promise<void> {
  const key = linkKey(runtime.keys.token.current, purpose, token, identifier)
  await storeOf(runtime).put(key, { identifier, expires, data: seal(runtime.keys.link.current, data) })
}

function storeOf(runtime: PasswordRuntime) {
  if (runtime.mail === null) throw new Error('password links need the e-mail provider')
  return runtime.mail.store
}
