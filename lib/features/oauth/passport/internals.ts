import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http'
import type { Passport } from 'passport'

// Every read and write of Passport's, passport-oauth2's and node-oauth's internals (their underscore
// members), in this one file: the rest of lib/ calls these functions and names no internal
// (spec/providers/oauth/passport-internals.spec.ts holds it to that). Each says the version whose
// internal it relies on and what breaks if that changes, so that a new version of passport (0.7),
// passport-oauth2 (1.8) or oauth (node-oauth, 0.10.x as passport-oauth2 1.8 requires it) is checked
// against this file alone. A strategy of the app's (passportStrategy()) may be built otherwise: the
// functions that may be given one read it defensively (undefined or false, never an exception); only
// oauth2ClientOf, for the package's own subclass, takes the client as given.

/** The callback of node-oauth's request method: an error, or the whole answer's text. */
export type ExecuteCallback = (error: unknown, result?: string, response?: IncomingMessage) => void

/** What node-oauth sends a request with: `http` or `https` (node-oauth picks one by the URL). */
export type HttpLibrary = { request(options: RequestOptions): ClientRequest }

/** node-oauth 0.10's `OAuth2#_executeRequest(http_library, options, post_body, callback)`. */
export type ExecuteRequest = (
  library: HttpLibrary,
  options: RequestOptions,
  body: unknown,
  callback: ExecuteCallback,
) => void

type TokenCallback = (error: unknown, accessToken?: unknown, refreshToken?: unknown, params?: unknown) => void

/**
 * node-oauth's OAuth2 client, as far as the package calls it: public methods of oauth 0.10's
 * `OAuth2`, reached through the strategy's internal `_oauth2`.
 */
export interface OAuth2Client {
  /** The token endpoint: a code, or with `grant_type: 'refresh_token'` a refresh token. */
  getOAuthAccessToken(code: string, params: Record<string, string>, callback: TokenCallback): void
  /** A GET with the access token: in the Authorization header once useAuthorizationHeaderforGET(true). */
  get(url: string, accessToken: string, callback: (error: unknown, body?: string | Buffer) => void): void
  useAuthorizationHeaderforGET(useIt: boolean): void
}

/**
 * A strategy's node-oauth client: passport-oauth2 1.8 keeps it as `_oauth2`. Undefined on a strategy
 * without one (or no strategy).
 */
function clientOf(strategy: unknown): unknown {
  return (strategy as { _oauth2?: unknown } | null | undefined)?._oauth2
}

/**
 * The strategy registered as `name` on a Passport instance: passport 0.7's `Authenticator#_strategy`
 * (marked `@api private`; Passport keeps no public way to get a strategy back). If it is renamed or
 * removed, this throws a TypeError and provider tokens can no longer be refreshed (the refresh specs
 * fail).
 */
export function strategyOf(passport: InstanceType<typeof Passport>, name: string): unknown {
  return (passport as unknown as { _strategy(name: string): unknown })._strategy(name)
}

/**
 * The node-oauth client of a strategy passport-oauth2 constructed (a subclass of its OAuth2Strategy):
 * passport-oauth2 1.8 sets it in its constructor as `_oauth2`, "protected" by its own comment
 * (subclasses may call it to fetch the profile). If it moves, building the strategy of an oauth2()
 * or oidc() provider throws a TypeError: auth() fails for oauth2(), and oidc() sign-ins fail once
 * discovery has answered.
 */
export function oauth2ClientOf(strategy: object): OAuth2Client {
  return clientOf(strategy) as OAuth2Client
}

/**
 * The client through which a token can be asked for: the strategy's `_oauth2` (passport-oauth2 1.8)
 * when it has node-oauth's `getOAuthAccessToken`, else undefined. If either moves, refreshing
 * provider tokens fails with "the strategy has no passport-oauth2 client".
 */
export function tokenClientOf(strategy: unknown): Pick<OAuth2Client, 'getOAuthAccessToken'> | undefined {
  const client = clientOf(strategy) as Partial<OAuth2Client> | undefined
  return typeof client?.getOAuthAccessToken === 'function'
    ? (client as Pick<OAuth2Client, 'getOAuthAccessToken'>)
    : undefined
}

/**
 * The authorization URL a passport-oauth2 strategy redirects to: node-oauth 0.10 keeps it on the
 * client as `_authorizeUrl` (passport-oauth2 1.8 reads it there too), the same field for every
 * strategy built on passport-oauth2. If it moves, this gives undefined: the sign-in page's CSP
 * leaves `form-action` out for that provider, and a warning says so at start-up.
 */
export function authorizeUrlOf(strategy: object): unknown {
  const client = clientOf(strategy)
  return typeof client === 'object' && client !== null
    ? (client as { _authorizeUrl?: unknown })._authorizeUrl
    : undefined
}

/**
 * Whether the strategy carries passport-oauth2's client with node-oauth's request method (the one
 * wrapExecuteRequest wraps): what "built on passport-oauth2" means to the package. If either moves,
 * auth() refuses every passportStrategy() provider as not built on passport-oauth2.
 */
export function hasOAuth2Client(strategy: unknown): boolean {
  const client = clientOf(strategy) as { _executeRequest?: unknown } | undefined
  return typeof client?._executeRequest === 'function'
}

/**
 * Replaces the strategy's request method with `wrap(original)`: node-oauth 0.10 sends every request
 * of a passport-oauth2 1.8 strategy (the token request, userProfile()'s GET, a refresh) through
 * `OAuth2#_executeRequest`. `original` runs on the client as before. Without that method (a strategy
 * built otherwise) nothing is replaced. If node-oauth renames it, the deadline and size cap on
 * provider requests (../deadline.ts) are silently lost, and auth() refuses passportStrategy()
 * providers (hasOAuth2Client); the deadline specs fail.
 */
export function wrapExecuteRequest(strategy: object, wrap: (original: ExecuteRequest) => ExecuteRequest): void {
  const client = clientOf(strategy) as { _executeRequest?: ExecuteRequest } | undefined
  const execute = client?._executeRequest
  if (!client || typeof execute !== 'function') return
  client._executeRequest = wrap((library, options, body, callback) =>
    execute.call(client, library, options, body, callback),
  )
}
