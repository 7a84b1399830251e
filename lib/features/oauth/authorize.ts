import type { SignInIdentity } from '../../core/sign-in/complete'
import type { Request } from 'express'
import { errorText, outsideText } from '../../infra/logger'
import { CHECKED_FLOW, type CheckedFlow, type FlowStart } from './passport/state-store'
import { verifyIdToken } from './id-token'
import { authTimeOfIdToken, freshAuthTime, methodsOfIdToken } from './assurance'
import { runStrategy, type StrategyResult } from './passport/adapter'
import { defaultProfile, toTokens } from './profile'
import { AUTHORIZATION_PARAMS, type DiscoveryError, type OAuthRegistry, type OAuthRuntime } from './registry'
import type { ProviderUser } from '../../infra/config/providers'
import type { OAuthTokens } from './types'

/** Parameters an app's extra authorization parameters can never replace. */
const PROTECTED = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'code_verifier',
])

/** Ours, read by the service itself (accounts' `link=true`): the provider is not told. */
const OWN = new Set(['link'])

/** The extra authorization parameters of a sign-in POST's query string (the client's third signIn argument). */
export function extraParams(query: URLSearchParams): Record<string, string> {
  const params = new Map<string, string>()
  for (const [name, value] of query)
    if (!PROTECTED.has(name) && !OWN.has(name) && !params.has(name)) params.set(name, value)
  return Object.fromEntries(params)
}

/**
 * What a strategy may read of the request: its query and body, strings only (a host app's
 * extended parsers make arrays and objects, which a strategy would put into errors and logs), in
 * records without a prototype.
 */
export interface StrategyInput {
  readonly query: URLSearchParams
  readonly body: Record<string, unknown>
}

function stringFields(input: StrategyInput): { query: Record<string, string>; body: Record<string, string> } {
  const query = Object.create(null) as Record<string, string>
  for (const [name, value] of input.query) if (!Object.hasOwn(query, name)) query[name] = value
  const body = Object.create(null) as Record<string, string>
  for (const [name, value] of Object.entries(input.body)) if (typeof value === 'string') body[name] = value
  return { query, body }
}

export type Started =
  | { ok: true; url: string }
  | { ok: false; reason: string }
  /** OIDC discovery failed (and was logged): a wrong configuration, or an issuer that cannot be reached. */
  | { ok: false; discovery: DiscoveryError }

/** Builds the authorization request; the flow starts (its cookie is set) through `start`. */
export async function startAuthorization(
  registry: OAuthRegistry,
  runtime: OAuthRuntime,
  req: Request,
  input: { callbackURL: string; start: FlowStart; params: Record<string, string>; nonce?: string },
): Promise<Started> {
  try {
    await runtime.discovered()
  } catch (error) {
    return { ok: false, discovery: error as DiscoveryError }
  }
  const params = input.nonce === undefined ? input.params : { ...input.params, nonce: input.nonce }
  // The strategy sees no query or body here: passport-oauth2 would read `?error=` or `?code=` on the
  // sign-in POST as if the provider had sent them. Extra parameters reach it as options.
  const nothing = stringFields({ query: new URLSearchParams(), body: {} })
  const result = await runStrategy(
    registry.passport,
    runtime.provider.id,
    req,
    { callbackURL: input.callbackURL, state: input.start, [AUTHORIZATION_PARAMS]: params },
    nothing,
  )
  return result.kind === 'redirect' ? { ok: true, url: result.url } : { ok: false, reason: describe(result) }
}

export interface Account {
  provider: string
  type: 'oauth'
  providerAccountId: string
  [token: string]: unknown
}

export type Finished =
  | {
      kind: 'signedIn'
      user: ProviderUser
      account: Account & OAuthTokens
      profile: Record<string, unknown>
      identity: SignInIdentity
      /** How the user signed in, by a verified ID token (RFC 8176); absent when it names nothing. */
      amr?: string[]
      /** When the user signed in at the provider, by a verified ID token's `auth_time`. */
      authTime?: number
    }
  | { kind: 'failed'; reason: string }

/** What the token exchange reads of the flow the callback checked (the whole flow is lib/core/sign-in/flow.ts's). */
interface FlowSecrets extends CheckedFlow {
  readonly nonce?: string
  readonly reauthAt?: number
}

/**
 * Handles the provider's answer for a flow the caller has already checked: the code is exchanged
 * with the flow's PKCE verifier, the ID token verified (OIDC), and the user mapped.
 */
export async function finishAuthorization(
  registry: OAuthRegistry,
  runtime: OAuthRuntime,
  req: Request,
  input: StrategyInput & { callbackURL: string; flow: FlowSecrets; iss: string | null },
): Promise<Finished> {
  const ready = await runtime.ready()
  if (!ready) return { kind: 'failed', reason: 'the provider could not be set up (see the discovery error)' }
  const { provider } = runtime
  if (ready.oidc) {
    // RFC 9207: an issuer that announces the `iss` parameter must send it, and it must be its own.
    const announced = ready.oidc.metadata.authorization_response_iss_parameter_supported === true
    if ((input.iss !== null || announced) && input.iss !== ready.oidc.metadata.issuer)
      return { kind: 'failed', reason: 'the iss parameter is missing or names another issuer' }
  }
  const { flow } = input
  const result = await runStrategy(
    registry.passport,
    provider.id,
    req,
    { callbackURL: input.callbackURL },
    { [CHECKED_FLOW]: flow, ...stringFields(input) },
  )
  if (result.kind !== 'success') return { kind: 'failed', reason: describe(result) }
  const { accessToken, refreshToken, params, profile } = result.user as {
    accessToken: string
    refreshToken?: string
    params: unknown
    profile: Record<string, unknown>
  }
  const tokens = toTokens(accessToken, refreshToken, params)
  let seen: Record<string, unknown> = profile ?? {}
  let issued: { sub: string; iss: string } | null = null
  let amr: string[] = []
  let authTime: number | undefined
  if (ready.oidc && provider.protocol === 'oidc') {
    const wantsNonce = provider.checks.includes('nonce')
    if (wantsNonce && flow.nonce === undefined) return { kind: 'failed', reason: 'the flow has no nonce' }
    const idToken = await verifyIdToken(
      tokens.id_token,
      {
        issuer: ready.oidc.metadata.issuer,
        clientId: provider.clientId,
        ...(wantsNonce ? { nonce: flow.nonce! } : {}),
      },
      ready.oidc.jwks,
    )
    if (!idToken.ok) return { kind: 'failed', reason: idToken.reason }
    if (flow.reauthAt !== undefined) {
      const fresh = freshAuthTime(idToken.claims, flow.reauthAt)
      if (!fresh.ok) return { kind: 'failed', reason: fresh.reason }
    }
    amr = methodsOfIdToken(idToken.claims, provider.acrValues)
    authTime = authTimeOfIdToken(idToken.claims)
    // userinfo may add to the ID token, never speak of another user (OIDC Core 5.3.2).
    if (seen.sub !== undefined && seen.sub !== idToken.claims.sub)
      return { kind: 'failed', reason: 'userinfo describes another subject than the ID token' }
    seen = { ...idToken.claims, ...seen, sub: idToken.claims.sub }
    issued = { sub: String(idToken.claims.sub), iss: ready.oidc.metadata.issuer }
  }
  let user: ProviderUser | null
  try {
    user = await (provider.profile ?? defaultProfile)(seen, tokens)
  } catch (error) {
    return {
      kind: 'failed',
      reason: `the provider's profile mapper threw: ${errorText(error)}`,
    }
  }
  if (!user || typeof user !== 'object' || typeof user.id !== 'string' || user.id === '')
    return { kind: 'failed', reason: 'the profile has no account id' }
  return {
    kind: 'signedIn',
    user,
    account: { provider: provider.id, type: 'oauth', providerAccountId: user.id, ...tokens },
    profile: seen,
    identity: identityOf(user, seen, issued),
    ...(amr.length > 0 ? { amr } : {}),
    ...(authTime === undefined ? {} : { authTime }),
  }
}

/**
 * Who the provider says this is, for accounts: an OpenID provider's verified ID token names its
 * subject and issuer (the app's profile mapper cannot change them); another provider's account id
 * is the mapped `user.id`. An address counts as verified only on the provider's
 * `email_verified: true`, and only the address it verified.
 */
function identityOf(
  user: ProviderUser,
  seen: Record<string, unknown>,
  issued: { sub: string; iss: string } | null,
): SignInIdentity {
  const email = typeof seen.email === 'string' && seen.email !== '' ? seen.email : undefined
  const verified = seen.email_verified === true && email !== undefined && email.length <= 320 ? email : undefined
  const name = [seen.preferred_username, seen.login, user.email, user.name].find(
    (value): value is string => typeof value === 'string' && value !== '',
  )
  return {
    subject: issued ? issued.sub : user.id,
    ...(issued ? { issuer: issued.iss } : {}),
    ...(verified === undefined ? {} : { verifiedEmail: verified }),
    ...(name === undefined ? {} : { label: name }),
  }
}

/**
 * A string field of a provider's or strategy's error, shortened, its control characters replaced
 * (parts of it can come from a provider, and no line break may reach any logger); anything else
 * counts as absent.
 */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? outsideText(value) : undefined
}

/** Errors whose message is the provider's text (passport-oauth2's classes for its error answers). */
const PROVIDER_ERRORS: ReadonlySet<string> = new Set(['TokenError', 'AuthorizationError'])

/** A log-safe description of a result that was not what the flow needed: no token, code or secret. */
function describe(result: StrategyResult): string {
  switch (result.kind) {
    case 'fail':
      return `refused: ${text((result.challenge as { message?: unknown } | undefined)?.message) ?? 'no reason given'}`
    case 'error': {
      const error = (result.error ?? {}) as {
        name?: unknown
        message?: unknown
        code?: unknown
        oauthError?: { statusCode?: unknown; message?: unknown }
      }
      const status = typeof error.oauthError?.statusCode === 'number' ? ` (HTTP ${error.oauthError.statusCode})` : ''
      const name = typeof error.name === 'string' && /^\w{1,40}$/.test(error.name) ? error.name : 'Error'
      // The provider's own words (a TokenError's or AuthorizationError's message is its
      // error_description) may quote the request back, code, verifier and client secret included:
      // only its error code is kept, and only when it looks like one (`invalid_grant`).
      const fromProvider = PROVIDER_ERRORS.has(name)
      const message = fromProvider ? undefined : text(error.message)
      // An InternalOAuthError's cause: a network failure or our deadline (an error, with a message);
      // a provider's answer comes as `{ statusCode, data }`, and its data is never read.
      const cause = error.oauthError && !('data' in error.oauthError) ? text(error.oauthError.message) : undefined
      const code = typeof error.code === 'string' && /^[\w.-]{1,64}$/.test(error.code) ? error.code : undefined
      return `${name}${message ? `: ${message}` : ''}${cause ? `: ${cause}` : ''}${code ? ` [${code}]` : ''}${status}`
    }
    default:
      return `unexpected strategy action: ${result.kind}`
  }
}
