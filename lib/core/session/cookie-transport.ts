import type { Request, Response } from 'express'
import type { CookieDef } from '../../infra/config/cookies'
import { ConfigurationError } from '../../infra/errors'
import {
  CHUNK_SIZE,
  clearChunked,
  hasChunked,
  MAX_CHUNKS,
  readChunked,
  writeChunked,
} from '../../infra/http/chunked-cookie'
import type { SessionTransport } from './transport'

/**
 * The session token in the session cookie, split over `<name>.0`, `<name>.1`, … when it is longer
 * than one cookie holds (lib/infra/http/chunked-cookie.ts). A class, not an object literal of
 * closures: `GET /session` makes one per request, and its methods are then shared, not made anew.
 */
export class CookieTransport implements SessionTransport {
  /** The token the request carried, joined from its chunks on first use (undefined: not yet read). */
  private carried: string | null | undefined = undefined

  constructor(
    /** The request's parsed cookies. */
    private readonly cookies: Record<string, unknown>,
    private readonly def: CookieDef,
    /** The response that sets the cookie; undefined where the session is only read (`getSession(req)`). */
    private readonly res?: Response,
  ) {}

  present(): boolean {
    return hasChunked(this.cookies, this.def.name)
  }

  token(): string | null {
    if (this.carried === undefined) this.carried = readChunked(this.cookies, this.def.name)
    return this.carried
  }

  assertFits(token: string): void {
    if (token.length > MAX_CHUNKS * CHUNK_SIZE) {
      throw new ConfigurationError(
        `a session of ${token.length} characters does not fit in ${MAX_CHUNKS} cookies of ${CHUNK_SIZE}: keep less in its data`,
      )
    }
  }

  write(token: string, maxAgeSeconds: number): void {
    if (this.res) writeChunked(this.res, this.cookies, this.def, token, maxAgeSeconds)
  }

  clear(): void {
    if (this.res) clearChunked(this.res, this.cookies, this.def)
  }

  /** Express's `res.req`: the request of the response, when there is one. */
  get request(): Request | undefined {
    return this.res?.req
  }
}
