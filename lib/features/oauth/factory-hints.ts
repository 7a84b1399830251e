import type { KeyHint } from '../../infra/util/options'

/**
 * The keys people write by mistake in oauth2(), oidc() and passportStrategy(), and the answer to
 * each: mostly Passport's spellings (`clientID`, `callbackURL`, `authorizationURL`), which the
 * factories other than passportStrategy() do not take, and options of one factory given to another.
 */

const CALLBACK: KeyHint = {
  why: 'The package sets the callback URL itself, `{url}/callback/{id}`: register that URL with the provider and remove this option.',
}
/** `clientID` for `clientId`: the spelling of Passport's strategies, not of oauth2() and oidc(). */
function passportSpelling(key: string, use: string): KeyHint {
  return {
    use,
    why: `${key} is Passport's spelling, which only the strategy's own \`options\` of passportStrategy() take.`,
  }
}
const SCOPES: KeyHint = {
  use: 'scope',
  why: "`scope` is one string of space-separated scopes, such as 'openid email'.",
}

function hints(entries: Record<string, KeyHint>): ReadonlyMap<string, KeyHint> {
  return new Map(Object.entries(entries))
}

const COMMON = {
  clientID: passportSpelling('clientID', 'clientId'),
  callbackURL: CALLBACK,
  callbackUrl: CALLBACK,
  redirectUri: CALLBACK,
  redirect_uri: CALLBACK,
  scopes: SCOPES,
  strategy: { why: 'A Passport strategy is given to passportStrategy({ id, strategy, options }).' },
}

export const OAUTH2_HINTS = hints({
  ...COMMON,
  authorizationURL: passportSpelling('authorizationURL', 'authorizationUrl'),
  tokenURL: passportSpelling('tokenURL', 'tokenUrl'),
  userInfoUrl: { use: 'userinfoUrl', why: '"userinfo" is one word, as in OpenID Connect.' },
  userInfoURL: passportSpelling('userInfoURL', 'userinfoUrl'),
  userinfoURL: passportSpelling('userinfoURL', 'userinfoUrl'),
  issuer: {
    why: 'oauth2() takes its endpoints explicitly; for an OpenID Connect issuer use oidc({ id, issuer, clientId, clientSecret }).',
  },
})

const DISCOVERED: KeyHint = {
  why: 'oidc() finds its endpoints by discovery from `issuer`; for a provider whose endpoints you give yourself use oauth2().',
}
const ISSUER: KeyHint = {
  use: 'issuer',
  why: 'oidc() reads `{issuer}/.well-known/openid-configuration` itself: give it the issuer URL.',
}

const ACR_VALUES: KeyHint = {
  use: 'acrValues',
  why: '`acrValues` is a list of the acr values that mean a second factor at this provider, sent as `acr_values`.',
}

export const OIDC_HINTS = hints({
  ...COMMON,
  ...Object.fromEntries(
    [
      'authorizationUrl',
      'authorizationURL',
      'tokenUrl',
      'tokenURL',
      'userinfoUrl',
      'userInfoUrl',
      'userinfoURL',
      'userInfoURL',
      'jwksUri',
      'jwksUrl',
    ].map((key) => [key, DISCOVERED]),
  ),
  issuerUrl: ISSUER,
  issuerURL: ISSUER,
  discoveryUrl: ISSUER,
  wellKnown: ISSUER,
  acr_values: ACR_VALUES,
  acr: ACR_VALUES,
})

/** The strategy's own options, given beside `options` instead of inside it. */
const INSIDE = "The strategy's own options go inside `options`, in the strategy's spelling."

export const STRATEGY_HINTS = hints({
  ...Object.fromEntries(
    ['clientID', 'clientSecret', 'scope', 'authorizationURL', 'tokenURL', 'userProfileURL'].map((key) => [
      key,
      { use: `options.${key}`, why: INSIDE },
    ]),
  ),
  clientId: { use: 'options.clientID', why: INSIDE },
  scopes: { use: 'options.scope', why: INSIDE },
  callbackURL: CALLBACK,
  callbackUrl: CALLBACK,
})
