import type { Response } from 'express'
import { isAuthError } from '../errors'
import { sendJson } from './reply'

/** What `orAnswer503` returns once it has answered the request itself. */
export const ANSWERED_503 = Symbol('answered 503')

/**
 * The store's answer, or (when it does not answer) `503 {}` sent with the cookie kept, as the wire
 * contract of `/session` says: the client keeps its session and asks again later.
 */
export async function orAnswer503<T>(res: Response, work: Promise<T>): Promise<T | typeof ANSWERED_503> {
  try {
    return await work
  } catch (error) {
    if (!isAuthError(error) || error.code !== 'ServiceUnavailable') throw error
    sendJson(res, 503, '{}', true)
    return ANSWERED_503
  }
}
