import type { Context } from '../../core/context'
import { invalidCsrf } from '../../core/csrf-failure'
import type { Feature, FeatureDefinition } from '../../core/feature'
import { AuthError, ConfigurationError } from '../../infra/errors'
import type { AccountsFeature } from '../accounts'
import type { EmailFeature } from '../email'
import { change, changePage, guardUnlink } from './change'
import { confirmSignUp, showSignUpLink } from './confirm'
import { donePage, sentPage } from './done'
import { forgot, forgotPage, reset, resetPage } from './reset'
import { normalizePassword } from './policy'
import { createPasswordRuntime, type PasswordRuntime } from './runtime'
import { passwordSignIn } from './sign-in'
import { signUp, signUpPage } from './signup'
import { PASSWORD_EVENTS, type PasswordHelpers } from './types'

/** A password form's body: the fields, a password of at most 1024 code points, a callbackUrl. */
const FORM_BODY = 16 * 1024

/**
 * Sign-in with a password (`password()`), on NextAuth's credentials wire, with sign-up, reset and
 * change (docs/passwords.md). It keeps its hashes on the accounts' store and sends its links
 * through the e-mail provider.
 */
export const password: FeatureDefinition = {
  name: 'password',
  requires: ['accounts', 'email'],
  protocols: ['password'],
  events: PASSWORD_EVENTS,
  check({ providers }) {
    const ours = providers.filter(({ type }) => type === 'credentials')
    if (ours.length > 1)
      throw new ConfigurationError('`providers` lists password() twice: one password provider per auth()')
  },
  build(env, required) {
    const accounts = (required.get('accounts') as AccountsFeature).runtime
    const mail = (required.get('email') as EmailFeature).runtime
    const runtime = createPasswordRuntime(env.config, accounts, mail, env.redis, env.keys)
    const helpers: PasswordHelpers = { checkPassword: checker(runtime) }
    if (runtime === null) return { name: 'password', helpers }
    const withMail = runtime.mail !== null
    const routes: NonNullable<Feature['routes']> = {
      'password/signup': {
        GET: (ctx) => signUpPage(ctx, runtime),
        POST: (ctx) => signUp(ctx, runtime),
        csrf: invalidCsrf.backTo('/password/signup'),
        rateLimit: 'flow',
        bodyLimit: FORM_BODY,
      },
      'password/change': {
        GET: (ctx) => changePage(ctx, runtime),
        POST: (ctx) => change(ctx, runtime),
        csrf: invalidCsrf.backTo('/password/change'),
        rateLimit: 'flow',
        bodyLimit: FORM_BODY,
      },
      'password/done': { GET: donePage },
      ...(withMail
        ? {
            'password/sent': { GET: sentPage },
            // The link's POST checks its own token: its answer to a bad one is the link again.
            'password/confirm': {
              GET: (ctx: Context) => showSignUpLink(ctx),
              POST: (ctx: Context) => confirmSignUp(ctx, runtime),
              csrf: 'exempt' as const,
              rateLimit: 'flow' as const,
            },
            'password/forgot': {
              GET: (ctx: Context) => forgotPage(ctx, runtime),
              POST: (ctx: Context) => forgot(ctx, runtime),
              csrf: invalidCsrf.backTo('/password/forgot'),
              rateLimit: 'flow' as const,
            },
            'password/reset': {
              GET: (ctx: Context) => resetPage(ctx, runtime),
              POST: (ctx: Context) => reset(ctx, runtime),
              csrf: invalidCsrf.backTo('/password/forgot'),
              rateLimit: 'flow' as const,
              bodyLimit: FORM_BODY,
            },
          }
        : {}),
    }
    const feature: Feature = {
      name: 'password',
      helpers,
      routes,
      guardWayIn: (ctx, record, wayIn) => guardUnlink(ctx, runtime, record, wayIn),
      providers: {
        ids: new Set([runtime.provider.id]),
        // NextAuth's clients post a credentials sign-in straight to its callback; a form that posts
        // here is sent to the sign-in page, which has the password form.
        signIn: {
          POST: (ctx) => ctx.redirect(ctx.serviceUrl('/signin')),
          csrf: invalidCsrf.backTo('/signin'),
          cors: 'POST',
        },
        callback: {
          POST: (ctx) => passwordSignIn(ctx, runtime),
          csrf: invalidCsrf.backTo('/signin'),
          rateLimit: 'flow',
          bodyLimit: FORM_BODY,
          cors: 'POST',
        },
      },
      signInPage: (ctx) => ({
        credentials: {
          action: ctx.serviceUrl(`/callback/${encodeURIComponent(runtime.provider.id)}`),
          identifier: runtime.provider.identifier,
          forgotUrl: withMail ? ctx.serviceUrl('/password/forgot') : null,
          signUpUrl: runtime.accounts.signUp ? ctx.serviceUrl('/password/signup') : null,
        },
      }),
    }
    return feature
  },
}

function checker(runtime: PasswordRuntime | null): PasswordHelpers['checkPassword'] {
  return async (text, context = {}) => {
    if (runtime === null) throw new AuthError('Configuration', 'checkPassword needs password() among the providers')
    if (typeof text !== 'string') return { ok: false, reasons: ['tooShort'] }
    return runtime.policy.check(normalizePassword(text), { identifier: context.identifier ?? null })
  }
}
