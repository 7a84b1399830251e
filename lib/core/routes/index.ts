import { invalidCsrf } from '../csrf-failure'
import type { Route } from '../feature'
import { clientLog } from './client-log'
import { csrfTokenJson } from './csrf'
import { errorPage } from './error'
import { providersJson } from './providers'
import { getSession } from './session'
import { updateSession } from './session-update'
import { signInPage } from './signin-page'
import { signOut } from './signout'
import { signOutPage } from './signout-page'
import { stylesheet } from './stylesheet'

/**
 * The core's own routes, relative to the base path; the features add theirs (lib/core/feature.ts),
 * and `signin/:provider` and `callback/:provider` are each provider's feature's (../route-table.ts).
 * `cors`: what a page on an allowed origin needs to read the session and sign out (docs/cors.md).
 */
export const CORE_ROUTES: Readonly<Record<string, Route>> = Object.freeze({
  csrf: { GET: csrfTokenJson, cors: 'GET' },
  providers: { GET: providersJson, cors: 'GET' },
  session: { GET: getSession, POST: updateSession, csrf: invalidCsrf.badRequest, cors: 'GET' },
  signin: { GET: signInPage },
  signout: { GET: signOutPage, POST: signOut, csrf: invalidCsrf.backTo('/signout'), cors: 'POST' },
  error: { GET: errorPage },
  'assets/style.css': { GET: stylesheet },
  // The v4 client's log beacon carries no authority and changes no state, so it needs no token.
  // An entry is a level, a code and a short message: a few hundred bytes.
  _log: { POST: clientLog, csrf: 'exempt', bodyLimit: 4096 },
})
