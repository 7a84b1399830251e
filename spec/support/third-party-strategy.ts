import OAuth2Strategy from 'passport-oauth2'

/**
 * A strategy written the way third-party Passport strategies are (passport-github2,
 * passport-google-oauth20): passport-oauth2 with fixed endpoints and a userProfile() that returns
 * Passport's normalized profile (`id`, `displayName`, `emails`, `photos`).
 */
export function thirdPartyStrategy(
  issuer: string,
  endpoints: { authorization_endpoint: string; token_endpoint: string; userinfo_endpoint: string },
) {
  return class IssuerStrategy extends OAuth2Strategy {
    constructor(
      options: Omit<OAuth2Strategy.StrategyOptionsWithRequest, 'authorizationURL' | 'tokenURL'>,
      verify: OAuth2Strategy.VerifyFunctionWithRequest,
    ) {
      super(
        {
          ...options,
          authorizationURL: endpoints.authorization_endpoint,
          tokenURL: endpoints.token_endpoint,
        },
        verify,
      )
      this.name = 'issuer'
      this._oauth2.useAuthorizationHeaderforGET(true)
    }

    override userProfile(accessToken: string, done: (error: unknown, profile?: unknown) => void): void {
      this._oauth2.get(endpoints.userinfo_endpoint, accessToken, (error, body) => {
        if (error) return done(new Error(`userinfo failed at ${issuer}`))
        const json = JSON.parse(String(body)) as { sub: string; name: string; email: string; picture?: string }
        done(null, {
          provider: 'issuer',
          id: json.sub,
          displayName: json.name,
          emails: [{ value: json.email }],
          photos: json.picture ? [{ value: json.picture }] : [],
          _json: json,
        })
      })
    }
  }
}
