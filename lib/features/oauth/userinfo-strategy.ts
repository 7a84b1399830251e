import OAuth2Strategy, { InternalOAuthError } from 'passport-oauth2'
import { isRecord } from '../../infra/util/object'
import { oauth2ClientOf } from './passport/internals'

/**
 * passport-oauth2 with a userinfo endpoint: the strategy for oauth2() and oidc() providers. The
 * profile is the userinfo JSON as the provider sent it (mapped to the user later).
 */
export class UserinfoStrategy extends OAuth2Strategy {
  private readonly userinfoUrl: string | undefined

  constructor(
    options: OAuth2Strategy.StrategyOptionsWithRequest & { userinfoURL?: string },
    verify: OAuth2Strategy.VerifyFunctionWithRequest,
  ) {
    super(options, verify)
    this.userinfoUrl = options.userinfoURL
    // Send the access token in the Authorization header, never in the userinfo URL.
    oauth2ClientOf(this).useAuthorizationHeaderforGET(true)
  }

  override userProfile(accessToken: string, done: (error: unknown, profile?: unknown) => void): void {
    if (!this.userinfoUrl) return done(null, {})
    oauth2ClientOf(this).get(this.userinfoUrl, accessToken, (error, body) => {
      if (error) return done(new InternalOAuthError('the userinfo request failed', error))
      try {
        const profile: unknown = JSON.parse(String(body))
        if (!isRecord(profile)) throw new Error('not an object')
        done(null, profile)
      } catch {
        done(new Error('the userinfo answer is not a JSON object'))
      }
    })
  }
}
