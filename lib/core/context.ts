import type { Request, Response } from 'express'
import type { CookieSet } from '../infra/config/cookies'
import type { BaseUrl } from '../infra/urls/base-url'
import { setCookie, type CookieIo } from '../infra/http/cookies'
import { CookieTransport } from './session/cookie-transport'
import type { SessionTransport } from './session/transport'
import { sendJson, sendRedirect } from '../infra/http/reply'
import type { Services } from './services'
import { chooseCallbackUrl } from '../infra/urls/callback-url'
import type { Messages } from '../infra/pages/messages'
import { errorText } from '../infra/logger'
import type { SessionRecord } from '../infra/config/types'
import { appRecord } from './session/shape'
import type { AuditFacts } from './audit'
import type { RouteSpan } from '../infra/telemetry'

/**
 * One request as a handler sees it, built by the router. A class, not an object literal: every
 * request's context then has one shape, which V8 keeps fast (a literal with a getter goes to
 * dictionary mode, and `GET /session` pays for it).
 */
export class Context {
  private parsedQuery: URLSearchParams | undefined = undefined
  /** This request's span (lib/infra/telemetry), set by the router; null while no tracer provider is registered. */
  span: RouteSpan | null = null

  constructor(
    readonly req: Request,
    readonly res: Response,
    readonly svc: Services,
    readonly base: BaseUrl,
    readonly cookieSet: CookieSet,
    readonly cookies: Record<string, unknown>,
    /** The `:provider` segment (a provider's id), for the routes that have one. */
    readonly providerId: string | undefined,
    /** The parsed POST body (empty for GET). */
    readonly body: Record<string, unknown>,
    /** The client asked for `{"url": …}` instead of a redirect (body `json=true` or `X-Auth-Return-Redirect: 1`). */
    readonly jsonMode: boolean,
  ) {}

  /** The query string, parsed on first use: the hot path (GET /session) never reads it. */
  get query(): URLSearchParams {
    if (this.parsedQuery === undefined) {
      const at = this.req.url.indexOf('?')
      this.parsedQuery = new URLSearchParams(at === -1 ? '' : this.req.url.slice(at + 1))
    }
    return this.parsedQuery
  }

  /**
   * A request parameter as a string: the POST body's field, else the query's. Only strings count:
   * an array or object (a host app's extended body parser makes them) is treated as absent.
   */
  param(name: string): string | null {
    const fromBody = this.body[name]
    return typeof fromBody === 'string' ? fromBody : this.query.get(name)
  }

  /** The session token's transport for this request: the session cookie. */
  sessionCookie(): SessionTransport {
    return new CookieTransport(this.cookies, this.cookieSet.sessionToken, this.res)
  }

  flowCookies(): CookieIo {
    return { cookies: this.cookies, def: this.cookieSet.flow, res: this.res }
  }

  /**
   * The CSRF token of a valid cookie, or a new one whose cookie is set on this response. A cookie
   * signed under a rotated-out secret keeps its token and is signed again with the current one, so
   * that the old secret can be dropped without cutting off a browser.
   */
  csrfToken(): string {
    const def = this.cookieSet.csrfToken
    const found = this.svc.csrf.inspect(this.cookies[def.name])
    if (found !== null && !found.stale) return found.token
    const issued = found === null ? this.svc.csrf.issue() : this.svc.csrf.resign(found.token)
    setCookie(this.res, def, issued.cookieValue)
    return issued.token
  }

  /** `302 Location`, or `{"url"}` in JSON mode. */
  redirect(url: string, jsonStatus = 200): void {
    if (this.jsonMode) sendJson(this.res, jsonStatus, JSON.stringify({ url }), true)
    else sendRedirect(this.res, url)
  }

  /**
   * Sends the user to the error page, `{base}/error?error=<code>`: `302 Location`, or `{"url"}` in
   * JSON mode (with `jsonStatus`). Every error page the package sends a user to goes through here.
   */
  redirectToError(code: string, jsonStatus = 200): void {
    // A provider's sign-in or callback sent to the error page is a refused sign-in (docs/telemetry.md).
    if (this.providerId !== undefined && this.svc.providerIds.has(this.providerId))
      this.audit({ event: 'signin', userId: null, provider: this.providerId, failure: code })
    this.redirect(this.serviceUrl('/error', { error: code }), jsonStatus)
  }

  /**
   * Records a security event of this request in the audit stream (./audit.ts), with its client's
   * address and user agent; the session handle, unless given, is that of the session the request's
   * cookie names (`record`: what it opened to). Without an `audit` sink only the metrics count it.
   */
  audit(facts: AuditFacts, record?: SessionRecord | null): void {
    const { audit } = this.svc
    if (this.span !== null) {
      if (facts.event === 'signin')
        this.span.outcome(facts.failure === undefined ? 'success' : 'failure', facts.failure)
      // The user by a keyed hash (lib/infra/telemetry), never by id: a trace can be found by it.
      if (facts.userId !== null) this.span.setAttribute('enduser.pseudo.id', this.svc.telemetry.userRef(facts.userId))
    }
    if (!audit.on) return audit.record(facts)
    const token = facts.handle === undefined ? this.sessionCookie().token() : null
    const handle = facts.handle ?? (token === null ? null : audit.handleOf(token, record ?? null))
    audit.record({ ...facts, handle }, this.req)
  }

  /** An absolute URL under the service: `{base}/signin?error=…`. */
  serviceUrl(path: string, query?: Record<string, string>): string {
    const search = query ? `?${new URLSearchParams(query).toString()}` : ''
    return `${this.base.href}${path}${search}`
  }

  /** The app's own page (`pages.*`), absolute, with this request's query carried over. */
  pageUrl(page: string): string {
    const url = new URL(page, this.base.origin)
    for (const [name, value] of this.query) url.searchParams.append(name, value)
    return url.href
  }

  /** The texts for this request's language; the answer then varies by Accept-Language. */
  messages(): Messages {
    const { languages } = this.svc
    if (languages.negotiated) this.res.vary('Accept-Language')
    return languages.pick(this.req.headers['accept-language'])
  }

  /** Where to send the user after a sign-in or sign-out: this request's callbackUrl, validated (lib/infra/urls). */
  callbackTarget(): Promise<string> {
    const { redirectOrigins, callbacks } = this.svc.config
    return chooseCallbackUrl(this.param('callbackUrl'), this.base, redirectOrigins, callbacks.redirect, this.svc.log)
  }

  /**
   * Runs an app event; a failing event is logged and never breaks the flow. A session record in the
   * message is handed over without its tokens (lib/core/session/shape.ts `appRecord`).
   */
  async emit<T>(name: string, event: ((message: T) => void | Promise<void>) | undefined, message: T): Promise<void> {
    if (!event) return
    try {
      await event(withoutTokens(message))
    } catch (error) {
      this.svc.log('error', 'event.error', `events.${name} threw: ${errorText(error)}`)
    }
  }
}

/** A route's handler: synchronous when it can answer without I/O (the hot GET routes), else a promise. */
export type Handler = (ctx: Context) => void | Promise<void>

function withoutTokens<T>(message: T): T {
  const record = (message as { record?: SessionRecord | null } | null)?.record
  return record?.tokens === undefined ? message : { ...message, record: appRecord(record) }
}
