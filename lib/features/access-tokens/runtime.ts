import type { FeatureEnv } from '../../core/feature'
import type { SessionLifecycle } from '../../core/session/lifecycle'
import type { SessionRecord } from '../../infra/config/types'
import { mac } from '../../infra/crypto/mac'
import type { Revocations } from '../../infra/store/types'
import type { ResolvedAccessTokens } from './options'

/** What the token route needs, built once at `auth()`. */
export interface AccessTokensRuntime {
  readonly options: ResolvedAccessTokens
  readonly revocations: Revocations
  /** The `listSessions` handle of a database session (the token's `sid`), null for a cookie session. */
  readonly handleOf: (token: string, record: SessionRecord) => string | null
  /** A cookie session's `sid`: a keyed hash of its sign-in's id, which re-issues and re-authentications keep. */
  readonly cookieSid: (record: SessionRecord) => string
  /** The same under every secret of the rotation list, the current first: what its tokens named it before a rotation too. */
  readonly cookieSids: (record: SessionRecord) => readonly string[]
  /** Logs, once per name, that `claims` answered a claim the service sets itself. */
  readonly warnReserved: (name: string) => void
}

export function accessTokensRuntime(env: FeatureEnv, options: ResolvedAccessTokens): AccessTokensRuntime {
  const sidKeys = env.keys('access-token-sid').all
  // Sessions sealed before sign-in ids were kept: by the user and the second of the sign-in.
  const sidsOf = (record: SessionRecord) =>
    sidKeys.map((key) =>
      record.signInId === undefined ? mac(key, record.userId, String(record.createdAt)) : mac(key, record.signInId),
    )
  const warned = new Set<string>()
  return Object.freeze({
    options,
    revocations: env.state.revocations,
    handleOf: (token: string, record: SessionRecord) => env.sessionHandle(token, record),
    cookieSid: (record: SessionRecord) => sidsOf(record)[0]!,
    cookieSids: sidsOf,
    warnReserved(name: string) {
      if (warned.has(name) || warned.size >= 32) return
      warned.add(name)
      env.log(
        'warn',
        'config.warning',
        `accessTokens.claims answered \`${name}\`, which the service sets itself: left out`,
      )
    },
  })
}

/**
 * The end of one session, where an API verifying tokens can see it (`requireAccessToken` with the
 * same Redis, lib/resource/): `ended:{sid}` under the service's Redis prefix. A database session
 * that ended issues no token again, so the mark lasts as long as its last token can; a copy of an
 * ended cookie session's cookie still opens here, so the mark lasts as long as that could, and its
 * tokens are refused throughout. A user's sessions ended all at once (sign-out everywhere,
 * `deleteUser`) need no mark: the user's revocation time, which APIs read too, covers them.
 */
/**
 * Seconds an end mark outlives the last token of its session: an API accepts a token until `exp` and
 * its clockTolerance (60 s at most) by its own clock, which may lag by up to that tolerance while it
 * still accepts fresh tokens (their `iat` within it); and a few seconds for `iat`, dated by Redis in
 * whole seconds (a second ahead after a revocation), or by a request that read the session just
 * before it ended.
 */
const VERIFIER_SLACK = 2 * 60 + 5

export function endMarks(env: FeatureEnv, runtime: AccessTokensRuntime): SessionLifecycle {
  const { redis } = env
  if (redis === null) return {}
  const { maxAge } = runtime.options
  const { maxLifetime } = env.config.session
  return {
    async sessionEnded(record: SessionRecord, sid: string | null) {
      const now = Math.floor(Date.now() / 1000)
      // Under every secret's name: a token issued before a rotation names the session by the old one.
      const claims = sid === null ? runtime.cookieSids(record) : env.handlesOfSid(sid, record)
      const alive = sid === null ? Math.max(0, record.createdAt + maxLifetime - now) : 0
      const ttl = alive + maxAge + VERIFIER_SLACK
      await redis.run(async (client) => {
        for (const claim of claims) await client.set(redis.key('ended', claim), '1', 'EX', ttl)
      })
    },
  }
}
