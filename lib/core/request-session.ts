import type { Request, Response } from 'express'
import type { SessionRecord } from '../infra/config/types'
import { serviceFor } from '../infra/http/base'
import { readCookies } from '../infra/http/cookies'
import type { Services } from './services'
import { CookieTransport } from './session/cookie-transport'
import type { SessionTransport } from './session/transport'

/** A request's session as the app's helpers read it outside the router: its record and its cookie. */
export interface RequestSession {
  readonly record: SessionRecord
  readonly cookie: SessionTransport
  /** The same cookie, writing on `res` (or nowhere): a helper whose response may go while it works. */
  readonly onResponse: (res: Response | undefined) => SessionTransport
}

/** The request's service URL and cookies; null for a Host that is not one (trustHost only). */
export function serviceOf(svc: Services, req: Request): ReturnType<typeof serviceFor> | null {
  try {
    return serviceFor(svc.config, req)
  } catch {
    return null
  }
}

/**
 * The request's valid session, or null (no session, an invalid one, a Host that is no host name).
 * `respond`: the cookie can be written on the request's response while its headers are not sent
 * (a helper that may save a changed record); else the cookie is read only.
 */
export async function readRequestSession(svc: Services, req: Request, respond = false): Promise<RequestSession | null> {
  const service = serviceOf(svc, req)
  if (service === null) return null
  const res = respond && req.res && !req.res.headersSent ? req.res : undefined
  const [cookies, def] = [readCookies(req), service.cookieSet.sessionToken]
  const cookie = new CookieTransport(cookies, def, res)
  if (!svc.sessions.present(cookie)) return null
  const record = await svc.sessions.read(cookie)
  return record ? { record, cookie, onResponse: (to) => new CookieTransport(cookies, def, to) } : null
}
