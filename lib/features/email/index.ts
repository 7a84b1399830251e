import type { Context } from '../../core/context'
import { invalidCsrf } from '../../core/csrf-failure'
import type { Feature, FeatureDefinition } from '../../core/feature'
import { AuthError, ConfigurationError } from '../../infra/errors'
import { confirmEmailLink, showEmailLink } from './callback'
import { addressHash, createEmailRuntime, type EmailRuntime } from './runtime'
import { startEmailSignIn } from './start'
import { takeTypedAddress } from './typed-address'
import { verifyRequest } from './verify-request'

/** Sign-in by a link sent by e-mail (`email()`). */
export interface EmailFeature extends Feature {
  /** The e-mail provider's transport, link store and limits; null without `email()`. Passwords send their mails through it. */
  readonly runtime: EmailRuntime | null
}

export const email: FeatureDefinition<EmailFeature> = {
  name: 'email',
  protocols: ['email'],
  check({ base, providers }) {
    providers.forEach(({ id, type }, index) => {
      if ((id === 'email') !== (type === 'email'))
        throw new ConfigurationError(
          `\`providers[${index}].id\` 'email' is reserved for the e-mail provider, which always has that id`,
        )
    })
    // A link built from a request's Host could point at any site, and the mail would carry the token there.
    if (base === null && providers.some(({ type }) => type === 'email'))
      throw new ConfigurationError(
        "`url` is required with email(): sign-in links are never built from a request's Host or X-Forwarded-Host; set `url: 'https://example.com/api/auth'` or SERVICE_AUTH_URL",
      )
  },
  build({ config, state, redis }) {
    const runtime = createEmailRuntime(config.providers, config.secrets, config.log, state, redis)
    // "Check your e-mail" is served with or without an e-mail provider, as it always was.
    const routes = { 'verify-request': { GET: verifyRequest } }
    if (runtime === null) return { name: 'email', routes, runtime }
    const own = (ctx: Context): EmailRuntime => {
      if (ctx.providerId !== runtime.provider.id) throw new AuthError('NotFound', 'no such provider')
      return runtime
    }
    const prefix = `${runtime.provider.id}:`
    return {
      name: 'email',
      routes,
      runtime,
      providers: {
        ids: new Set([runtime.provider.id]),
        signIn: {
          POST: (ctx) => startEmailSignIn(ctx, own(ctx)),
          csrf: invalidCsrf.backTo('/signin'),
          rateLimit: 'flow',
          cors: 'POST',
        },
        // The link's POST checks its own token, because its answer to a bad one is the link itself.
        callback: {
          GET: (ctx) => showEmailLink(ctx, own(ctx)),
          POST: (ctx) => confirmEmailLink(ctx, own(ctx)),
          csrf: 'exempt',
          rateLimit: 'flow',
        },
      },
      signInPage: (ctx, error) => {
        const typed = takeTypedAddress(ctx, runtime.keys.typed, error === 'EmailSignin')
        return typed === undefined ? {} : { email: typed }
      },
      // A log entry names an e-mail sign-in's own user (`{provider id}:{address}`) by the address's keyed hash.
      userForLog: (userId) =>
        userId.startsWith(prefix) ? { addressHash: addressHash(runtime, userId.slice(prefix.length)) } : null,
    }
  },
}
