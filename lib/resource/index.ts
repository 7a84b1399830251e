/**
 * `express-auth-service/resource`: for the APIs that accept the auth service's access tokens
 * (docs/access-tokens.md). It loads nothing of `auth()`: an API needs neither its options nor its
 * dependencies.
 */
export { requireAccessToken, type AccessTokenLocals } from './require-access-token'
export type { AccessTokenClaims } from './claims'
export type { RequireAccessTokenOptions } from './options'
