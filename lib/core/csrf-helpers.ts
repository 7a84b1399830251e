import type { Request, Response } from 'express'
import { crossSiteRefused } from '../infra/csrf/origin'
import { readCookies, setCookie } from '../infra/http/cookies'
import { NO_STORE } from '../infra/http/reply'
import type { CoreHelpers } from './helpers'
import { serviceOf } from './request-session'
import type { Services } from './services'

/** The CSRF helpers: the app's own forms carry the service's token (signed double-submit, lib/infra/csrf). */
export function createCsrfHelpers(svc: Services): Pick<CoreHelpers, 'getCsrfToken' | 'verifyCsrfToken'> {
  return Object.freeze({
    getCsrfToken(req: Request, res: Response): string | null {
      const def = serviceOf(svc, req)?.cookieSet.csrfToken ?? null
      if (def === null) return null
      // The token goes into the page (and maybe its pair into a Set-Cookie): no cache may keep it.
      if (!res.headersSent) res.setHeader('Cache-Control', NO_STORE)
      const found = svc.csrf.inspect(readCookies(req)[def.name])
      if (found !== null && !found.stale) return found.token
      const issued = found === null ? svc.csrf.issue() : svc.csrf.resign(found.token)
      setCookie(res, def, issued.cookieValue)
      return issued.token
    },
    verifyCsrfToken(req: Request, submitted: unknown): boolean {
      const service = serviceOf(svc, req)
      if (service === null) return false
      // The origin check the service's own POSTs pass (lib/infra/csrf/origin.ts), behind the token.
      if (crossSiteRefused(req.headers, service.base.origin, svc.config.trustedOrigins)) return false
      return svc.csrf.verify(readCookies(req)[service.cookieSet.csrfToken.name], submitted)
    },
  })
}
