import type { Request } from 'express'
import type { PassportInstance } from '../registry'

/**
 * Passport's five strategy actions (success, fail, redirect, pass, error), adapted in this one
 * place into one promise of a tagged result.
 */
export type StrategyResult =
  | { kind: 'success'; user: unknown; info: unknown }
  | { kind: 'fail'; challenge: unknown; status?: number }
  | { kind: 'redirect'; url: string }
  | { kind: 'pass' }
  | { kind: 'error'; error: unknown }

/**
 * Runs the strategy registered as `name` on the request. Passport is given a delegate of the
 * request (its prototype is the real one), so that what Passport adds to a request (login, logout,
 * isAuthenticated) never lands on the host app's request, and a response stand-in that catches
 * the redirect instead of sending it.
 */
export function runStrategy(
  passport: PassportInstance,
  name: string,
  req: Request,
  options: Record<string, unknown>,
  extra: Record<PropertyKey, unknown> = {},
): Promise<StrategyResult> {
  return new Promise((resolve) => {
    const delegate = Object.create(req, Object.getOwnPropertyDescriptors(extra)) as Request
    let location = ''
    const response = {
      statusCode: 200,
      setHeader(header: string, value: string) {
        if (header.toLowerCase() === 'location') location = value
      },
      end: () => resolve({ kind: 'redirect', url: location }),
    }
    const middleware = passport.authenticate(
      name,
      { ...options, session: false },
      (error: unknown, user: unknown, info: unknown, status?: number) => {
        if (error) resolve({ kind: 'error', error })
        else if (user) resolve({ kind: 'success', user, info })
        else resolve({ kind: 'fail', challenge: info, ...(status === undefined ? {} : { status }) })
      },
    ) as (req: Request, res: unknown, next: (error?: unknown) => void) => void
    try {
      middleware(delegate, response, (error?: unknown) => resolve(error ? { kind: 'error', error } : { kind: 'pass' }))
    } catch (error) {
      resolve({ kind: 'error', error })
    }
  })
}
