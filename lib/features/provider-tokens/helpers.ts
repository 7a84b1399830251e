import type { Request } from 'express'
import { readRequestSession } from '../../core/request-session'
import type { Services } from '../../core/services'
import type { SessionRecord } from '../../infra/config/types'
import type { GetAccessTokenOptions } from './checks'
import type { AccessToken, ProviderTokens } from './runtime'

/** The helper this feature adds to the router `auth()` returns. */
export interface TokenHelpers {
  /**
   * A valid access token of the signed-in user at `providerId` (a provider with `tokens: true`):
   * `{ accessToken, expiresAt, tokenType, scope }`, refreshed first when it expires within
   * `minValidity` seconds (default 60) or with `refresh: 'force'`; one refresh however many requests
   * and instances ask. Null when nobody is signed in or the session holds no tokens of that provider.
   * Rejects with a `RefreshAccessTokenError` AuthError when the provider refused the refresh for good
   * (the session then says `error: 'RefreshAccessTokenError'`), `ServiceUnavailable` when Redis or
   * the provider does not answer. Call it before the response is sent: without Redis the refreshed
   * tokens travel in the session cookie.
   */
  getAccessToken(req: Request, providerId: string, options?: GetAccessTokenOptions): Promise<AccessToken | null>
}

const LATE_SAVE = 'getAccessToken ran after the response was sent: the session cookie keeps the old tokens'

/** getAccessToken(req, providerId, options): the request's session, and its cookie to save a changed one. */
export function tokenHelpers(services: () => Services, tokens: ProviderTokens): TokenHelpers {
  return Object.freeze({
    async getAccessToken(req: Request, providerId: string, options?: GetAccessTokenOptions) {
      if (typeof providerId !== 'string') throw new TypeError('getAccessToken(req, providerId): providerId is a string')
      tokens.checkProvider(providerId)
      const svc = services()
      const found = await readRequestSession(svc, req, true)
      if (!found) return null
      const { record, onResponse } = found
      const res = req.res && !req.res.headersSent ? req.res : undefined
      const cookieSession = svc.config.session.strategy === 'cookie'
      // Read at each step: the headers may go while the provider answers (no Set-Cookie then).
      const live = () => (res && !res.headersSent ? res : undefined)
      const save = async (changed: SessionRecord) => {
        if (!live() && cookieSession) svc.log('warn', 'tokens.warning', LATE_SAVE)
        await svc.sessions.save(onResponse(live()), changed)
      }
      const session = {
        record,
        save,
        get late() {
          return cookieSession && !live()
        },
      }
      return tokens.getAccessToken(session, providerId, options)
    },
  })
}
