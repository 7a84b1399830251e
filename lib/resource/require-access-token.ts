import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { bearerOf, invalidRequest, invalidToken, missingToken, stepUpAnswer, unavailable } from './answers'
import { checkToken, NOT_VALID, verifiedTokens, type AccessTokenClaims, type TokenCheck } from './claims'
import { keySet } from './key-set'
import { resolveResourceOptions, type RequireAccessTokenOptions } from './options'
import { revocationCheck, type Revocation } from './revocation'

/** `res.locals` after `requireAccessToken()`: `Response<unknown, AccessTokenLocals>` in a handler. */
export interface AccessTokenLocals {
  /** The token's claims, every check passed. */
  accessToken: AccessTokenClaims
}

export const ENDED = 'the session ended'

/**
 * `requireAccessToken(options)`: Express middleware (4 and 5) for an API that accepts the auth
 * service's access tokens (`Authorization: Bearer …`). It needs nothing of `auth()`: the service's
 * URL, the API's own, and (to refuse tokens of ended sessions) the service's Redis. The options are
 * checked here, once; every request then costs a look-up of the token among those whose signature
 * verified (./claims.ts: one signature check per token), its claims' times and, with `redis`, two
 * look-ups in memory. A request is answered within WAIT_MS (./key-set.ts) or Redis's deadline, whatever the
 * service or Redis do.
 */
export function requireAccessToken(options: RequireAccessTokenOptions): RequestHandler {
  const resolved = resolveResourceOptions(options)
  const keys = keySet(resolved.jwksUri)
  const verified = verifiedTokens()
  const { redis } = resolved
  const revocation = redis ? revocationCheck(redis.client, redis.prefix, resolved.redisTimeout) : null
  const stepUp = stepUpAnswer(resolved.maxAge, resolved.aal)

  function accept(res: Response, next: NextFunction, claims: AccessTokenClaims, revoked: Revocation): void {
    if (revoked === 'ended') return invalidToken(res, ENDED)
    if (revoked === 'unavailable') return unavailable(res)
    ;(res.locals as AccessTokenLocals).accessToken = claims
    next()
  }

  function finish(res: Response, next: NextFunction, check: TokenCheck): void {
    if (check.kind === 'invalid') return invalidToken(res, check.description)
    if (check.kind === 'insufficient') return stepUp(res)
    if (check.kind === 'no keys') return unavailable(res)
    if (check.kind === 'unknown key') return invalidToken(res, NOT_VALID)
    const { claims } = check
    if (revocation === null) return accept(res, next, claims, 'live')
    // Without its session, a token could not be checked against the session's end: never accepted then.
    const { sid } = claims
    if (sid === undefined) return invalidToken(res, NOT_VALID)
    const revoked = revocation.check(claims.sub, sid, claims.iat)
    if (typeof revoked === 'string') return accept(res, next, claims, revoked)
    // Never rejects; a throw of the answer's own (a response already ended) goes to Express.
    revoked.then((found) => accept(res, next, claims, found)).catch(next)
  }

  return function requireAccessTokenMiddleware(req: Request, res: Response, next: NextFunction): void {
    const bearer = bearerOf(req.headers.authorization)
    if (bearer.kind === 'none') return missingToken(res)
    if (bearer.kind === 'malformed') return invalidRequest(res)
    const { token } = bearer
    const first = checkToken(token, keys, resolved, Date.now() / 1000, verified)
    if (first.kind !== 'no keys' && first.kind !== 'unknown key') return finish(res, next, first)
    // The key set, fetched now (or by a fetch under way), waited for WAIT_MS at most.
    keys
      .refresh()
      .then((fetched) =>
        finish(res, next, fetched ? checkToken(token, keys, resolved, Date.now() / 1000, verified) : first),
      )
      .catch(next)
  }
}
