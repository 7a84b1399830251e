import type { Context } from '../../core/context'
import { invalidCsrf } from '../../core/csrf-failure'
import type { Feature, FeatureDefinition, Route } from '../../core/feature'
import { AuthError, ConfigurationError } from '../../infra/errors'
import { providerUrls } from '../../infra/urls/provider-urls'
import { finishPasskey } from './callback'
import { createPasskeyHelpers } from './manage'
import { crossSiteOptions, webauthnOptions } from './options-route'
import { createPasskeyRuntime } from './runtime'
import { passkeyScript } from './script'
import { passkeySecondStep, type PasskeySecondStep } from './second-step'
import { PASSKEY_EVENTS } from './types'

const notFound = () => {
  throw new AuthError('NotFound', 'no passkey provider')
}

/** The passkey feature as a feature that requires it sees it (mfa: a passkey as the second step). */
export interface PasskeyFeature extends Feature {
  /** Null without a passkey() provider. */
  readonly secondStep: PasskeySecondStep | null
}

/** Sign-in and sign-up with passkeys (`passkey()`), and the helpers that manage a user's passkeys. */
export const passkey: FeatureDefinition<PasskeyFeature> = {
  name: 'passkey',
  protocols: ['webauthn'],
  events: PASSKEY_EVENTS,
  check({ base, providers }) {
    const kinds = providers.map(({ type }) => type)
    const second = kinds.indexOf('webauthn', kinds.indexOf('webauthn') + 1)
    if (second !== -1)
      throw new ConfigurationError(`\`providers[${second}]\` is a second passkey() provider; configure one`)
    // A passkey is bound to its relying party's ID, which must not change with a header.
    if (base === null && providers.some(({ type }) => type === 'webauthn'))
      throw new ConfigurationError(
        "`url` is required with passkey(): the relying party ID of every passkey comes from it; set `url: 'https://example.com/api/auth'` or SERVICE_AUTH_URL",
      )
  },
  build({ config, redis, sessionHandle, audit }) {
    const runtime = createPasskeyRuntime(
      config.providers,
      config.secrets,
      config.log,
      redis,
      config.base,
      sessionHandle,
    )
    const helpers = createPasskeyHelpers(runtime, audit)
    // Without a passkey() provider both routes answer 404: the script would be a gadget on the app's
    // origin (it posts a credential and a fetched CSRF token to whatever form carries its attributes).
    if (runtime === null)
      return {
        name: 'passkey',
        routes: { 'webauthn-options/:provider': { GET: notFound }, 'assets/passkey.js': { GET: notFound } },
        helpers,
        secondStep: null,
      }
    const { id } = runtime.provider
    // The options are a GET that keeps a challenge and sets a cookie: counted like a sign-in, and
    // refused from another site as a POST is.
    const options: Route = {
      GET: (ctx) => webauthnOptions(ctx, runtime),
      rateLimit: 'all',
      crossSite: 'all',
      crossSiteAnswer: crossSiteOptions,
    }
    return {
      name: 'passkey',
      routes: { 'webauthn-options/:provider': options, 'assets/passkey.js': { GET: passkeyScript } },
      providers: {
        ids: new Set([id]),
        // The answer is posted by the page's script or the NextAuth client, with the CSRF token.
        callback: {
          GET: () => {
            throw new AuthError('NotFound', 'a passkey answer is posted')
          },
          POST: (ctx: Context) => finishPasskey(ctx, runtime),
          csrf: invalidCsrf.backTo('/signin'),
          crossSiteAnswer: invalidCsrf.missing,
          rateLimit: 'flow',
        },
      },
      signInPage: (ctx) => ({
        passkey: {
          optionsUrl: ctx.serviceUrl(`/webauthn-options/${id}`),
          callbackUrl: providerUrls(ctx.base, id).callbackUrl,
        },
      }),
      helpers,
      secondStep: passkeySecondStep(runtime),
      // Accounts list, count and unlink passkeys beside the ways in of their store, and erase them with the user.
      waysIn: {
        list: async (userId) =>
          (await runtime.store.listByUser(userId)).map((passkey) => ({
            id: passkey.id,
            provider: id,
            type: 'webauthn' as const,
            label: passkey.name,
            linkedAt: new Date(passkey.createdAt),
            lastUsedAt: passkey.lastUsedAt === null ? null : new Date(passkey.lastUsedAt),
          })),
        async remove(userId, passkeyId) {
          const passkey = await runtime.store.get(passkeyId)
          if (passkey?.userId !== userId) return null
          await runtime.store.delete(passkeyId)
          return async () => void (await runtime.store.create(passkey))
        },
      },
      // A listing may hold only some of a user's passkeys (Redis reads 100 at a time): erasure lists
      // again until none is left, or only ones this loop deleted already (a store that keeps them).
      userDeleted: async (userId) => {
        const deleted = new Set<string>()
        for (;;) {
          const left = (await runtime.store.listByUser(userId)).filter(({ id }) => !deleted.has(id))
          if (left.length === 0) return
          for (const { id } of left) {
            await runtime.store.delete(id)
            deleted.add(id)
          }
        }
      },
    }
  },
}
