import type { Request } from 'express'

/**
 * How a session token travels between the client and the service: read from the request, handed
 * back on the response. The session manager (./manager.ts) knows the token alone and reaches the
 * client through this; the cookie (./cookie-transport.ts) is one transport, and another (a bearer
 * token) is one more implementation, with no change to the manager.
 *
 * A transport is made per request, and only reads and writes the client's side: it never opens a
 * token (the record stores do) and never decides whether a session is valid (the manager does).
 */
export interface SessionTransport {
  /** Whether the request carries a session token at all: a look, no parsing of the token, no crypto. */
  present(): boolean
  /** The token the request carried, or null (never one handed out during this request). */
  token(): string | null
  /**
   * Throws a ConfigurationError, saying what to do, for a token too long for this transport to carry.
   * The manager asks before anything records the session, so that a session nobody can carry never starts.
   */
  assertFits(token: string): void
  /** Hands the client `token` to send from now on, for `maxAgeSeconds`: nothing where there is no response. */
  write(token: string, maxAgeSeconds: number): void
  /** Tells the client to forget its token: nothing where there is no response. */
  clear(): void
  /** The request a new session signs in from (where it comes from, kept for the device list), when known. */
  readonly request: Request | undefined
}
