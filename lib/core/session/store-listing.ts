import { callStore, type ExpressSessionStore } from '../../infra/store/express-session-store'
import type { SessionIndex } from '../../infra/store/types'
import { isRecord } from '../../infra/util/object'

/**
 * The `cookie` of an entry in an express-session store: when it expires, both as `expires` (what
 * express-session's stores and connect-redis read) and as `maxAge` in milliseconds (what others,
 * such as memorystore, read; without it they keep an entry one hour, and a listing gone after an
 * hour would end a session that renewals keep alive).
 */
export function storeCookie(untilSeconds: number): { expires: string; maxAge: number } {
  const expires = new Date(untilSeconds * 1000)
  return { expires: expires.toISOString(), maxAge: Math.max(expires.getTime() - Date.now(), 0) }
}

/**
 * Which database sessions are listed, when no shared index says it (an app's own `session.store`
 * and no `redis`): an entry beside each record, in the store itself, so that every instance sharing
 * the store sees the same. Its key is `listed.{sid}`: no session id has a '.', and a store that names
 * files after keys can name this one. Only a sign-in writes that entry, and every end of a session
 * deletes it before the record: a write racing the end (a renewal, an update) can bring the record
 * back, never its listing.
 *
 * The process's own index still finds a user's sessions, for the cap per user and sign-out
 * everywhere: with several instances, only the sessions made on this one (docs/session-stores.md).
 */
export function listedInStore(
  store: ExpressSessionStore,
  index: SessionIndex,
  call: <T>(work: () => Promise<T>) => Promise<T>,
): SessionIndex {
  const keyOf = (sid: string) => `listed.${sid}`
  const unlist = async (sids: readonly string[]) => {
    await Promise.all(sids.map((sid) => call(() => callStore((done) => store.destroy(keyOf(sid), done)))))
  }
  return Object.freeze({
    async add(userId: string, sid: string, untilSeconds: number) {
      // Expires when the session can no longer live, whatever renewals do: sign-in + maxLifetime.
      const entry = { cookie: storeCookie(untilSeconds), listed: true }
      await call(() => callStore((done) => store.set(keyOf(sid), entry, done)))
      const dropped = await index.add(userId, sid, untilSeconds)
      await unlist(dropped)
      return dropped
    },
    async has(_userId: string, sid: string) {
      const entry = await call(() => callStore<unknown>((done) => store.get(keyOf(sid), done)))
      return isRecord(entry) && entry.listed === true
    },
    members: (userId: string, nowSeconds: number) => index.members(userId, nowSeconds),
    async remove(userId: string, sids: readonly string[]) {
      // Unlisted before this process forgets them: a store that fails leaves them found, so that a
      // retry (a provider's back-channel logout, sign-out everywhere) ends them, never a live session nobody finds.
      await unlist(sids)
      await index.remove(userId, sids)
    },
    async move(userId: string, from: string, to: string, untilSeconds: number) {
      // Listed under its new id first: the session is never listed nowhere.
      await call(() =>
        callStore((done) => store.set(keyOf(to), { cookie: storeCookie(untilSeconds), listed: true }, done)),
      )
      if (!(await this.claim(userId, from))) {
        await unlist([to])
        return false
      }
      // This process's index, without trimming (a move is no new sign-in).
      if (!(index.move && (await index.move(userId, from, to, untilSeconds)))) await index.add(userId, to, untilSeconds)
      return true
    },
    async claim(userId: string, sid: string) {
      // A session made on this instance: this process's index decides, at once (of two claims, one wins).
      if (index.claim && (await index.has(userId, sid))) {
        const won = await index.claim(userId, sid)
        await unlist([sid])
        return won
      }
      // Made on another: no store has an atomic take of an entry, so two claims at once may both win
      // (a re-authentication submitted twice then leaves two sessions under one handle; ending it ends both).
      const entry = await call(() => callStore<unknown>((done) => store.get(keyOf(sid), done)))
      await unlist([sid])
      await index.remove(userId, [sid])
      return isRecord(entry) && entry.listed === true
    },
  })
}
