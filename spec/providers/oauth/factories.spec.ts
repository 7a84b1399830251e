import OAuth2Strategy from 'passport-oauth2'
import {
  auth,
  ConfigurationError,
  oauth2,
  oidc,
  passportStrategy,
  type LogEntry,
  type OAuthProvider,
} from '../../../lib'
import { extraParams } from '../../../lib/providers/oauth/authorize'
import { defaultProfile, toTokens } from '../../../lib/providers/oauth/profile'
import { restoreClock, useClock } from '../../support/clock'

class GitHubLikeStrategy extends OAuth2Strategy {}

const OAUTH = {
  id: 'github',
  // No cast: a passport-oauth2 subclass must fit StrategyClass as it is (the docs' usage).
  strategy: GitHubLikeStrategy,
  options: {
    clientID: 'app',
    clientSecret: 's3cret',
    authorizationURL: 'https://github.example.com/login/oauth/authorize',
    tokenURL: 'https://github.example.com/login/oauth/access_token',
  },
}
const OAUTH2 = {
  id: 'corp',
  clientId: 'app',
  clientSecret: 's3cret',
  authorizationUrl: 'https://corp.example.com/authorize',
  tokenUrl: 'https://corp.example.com/token',
}
const OIDC = { id: 'idp', clientId: 'app', clientSecret: 's3cret', issuer: 'https://idp.example.com/' }

/** Expects `make` to throw a ConfigurationError that names `option` and says how to fix it. */
function expectConfigurationError(make: () => unknown, option: string, fix: RegExp): void {
  let error: unknown
  try {
    make()
  } catch (caught) {
    error = caught
  }
  expect(error).toBeInstanceOf(ConfigurationError)
  expect((error as Error).message).toContain(`\`${option}\``)
  expect((error as Error).message).toMatch(fix)
}

describe('provider factories: configuration errors name the option and the fix', () => {
  it('requires an id, a client id and a client secret', () => {
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, id: undefined as never }),
      'providers["?"].id',
      /required: a URL-safe name such as 'github'/,
    )
    expectConfigurationError(() => passportStrategy({ ...OAUTH, id: '' }), 'providers[""].id', /required/)
    expectConfigurationError(() => oidc({ ...OIDC, id: undefined as never }), 'providers["?"].id', /required/)
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, clientId: undefined as never }),
      'providers["corp"].clientId',
      /required \(a non-empty string\)/,
    )
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, clientSecret: '' }),
      'providers["corp"].clientSecret',
      /required/,
    )
    expectConfigurationError(() => oidc({ ...OIDC, clientId: '' }), 'providers["idp"].clientId', /required/)
    expectConfigurationError(
      () => oidc({ ...OIDC, clientSecret: undefined as never }),
      'providers["idp"].clientSecret',
      /required/,
    )
  })

  it('requires absolute http(s) URLs for the endpoints and the issuer', () => {
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, authorizationUrl: '/authorize' }),
      'providers["corp"].authorizationUrl',
      /must be an absolute http\(s\) URL; got "\/authorize"/,
    )
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, tokenUrl: 'ftp://corp.example.com/token' }),
      'providers["corp"].tokenUrl',
      /absolute http\(s\) URL/,
    )
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, userinfoUrl: 'userinfo' }),
      'providers["corp"].userinfoUrl',
      /absolute http\(s\) URL/,
    )
    expectConfigurationError(
      () => oidc({ ...OIDC, issuer: 'idp.example.com' }),
      'providers["idp"].issuer',
      /absolute http\(s\) URL; got "idp.example.com"/,
    )
  })

  it("refuses checks without 'state', unknown checks, and 'nonce' on a provider without ID tokens", () => {
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, checks: ['pkce'] }),
      'providers["corp"].checks',
      /must include 'state'.*cannot be turned off/,
    )
    expectConfigurationError(() => oidc({ ...OIDC, checks: [] }), 'providers["idp"].checks', /must include 'state'/)
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, checks: ['state', 'pkse' as never] }),
      'providers["corp"].checks',
      /a list of 'state', 'pkce' and 'nonce'/,
    )
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, checks: ['state', 'nonce'] }),
      'providers["corp"].checks',
      /'nonce' needs an ID token: use oidc\(\)/,
    )
    expectConfigurationError(
      () => passportStrategy({ ...OAUTH, checks: ['state', 'pkce', 'nonce'] }),
      'providers["github"].checks',
      /use oidc\(\)/,
    )
  })

  it.each(['callbackURL', 'store', 'state', 'pkce', 'passReqToCallback'])(
    'refuses the strategy option %s, which the package sets',
    (reserved) => {
      expectConfigurationError(
        () => passportStrategy({ ...OAUTH, options: { ...OAUTH.options, [reserved]: 'x' } }),
        `providers["github"].options.${reserved}`,
        /is set by the package.*; remove it/,
      )
    },
  )

  it('refuses a strategy that is not a class, and strategy options that are not an object', () => {
    const instance = new GitHubLikeStrategy({ ...OAUTH.options, callbackURL: '/cb' }, () => {})
    expectConfigurationError(
      () => passportStrategy({ ...OAUTH, strategy: instance as never }),
      'providers["github"].strategy',
      /must be a Passport strategy class such as require\('passport-github2'\)\.Strategy/,
    )
    expectConfigurationError(
      () => passportStrategy({ ...OAUTH, strategy: { Strategy: GitHubLikeStrategy } as never }),
      'providers["github"].strategy',
      /strategy class/,
    )
    expectConfigurationError(
      () => passportStrategy({ ...OAUTH, options: undefined as never }),
      'providers["github"].options',
      /the strategy's options object/,
    )
  })

  it('refuses a strategy given as an arrow function (it cannot be constructed)', () => {
    const factory = (options: Record<string, unknown>, verify: never) =>
      new GitHubLikeStrategy(options as never, verify)
    expectConfigurationError(
      () => passportStrategy({ ...OAUTH, strategy: factory as never }),
      'providers["github"].strategy',
      /strategy class/,
    )
  })

  it('refuses a profile mapper that is not a function', () => {
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, profile: 'name' as never }),
      'providers["corp"].profile',
      /must be a function/,
    )
  })
})

describe('provider factories: defaults', () => {
  it("checks 'state' and 'pkce' by default, and 'nonce' too for OpenID Connect", () => {
    expect(passportStrategy(OAUTH).checks).toEqual(['state', 'pkce'])
    expect(oauth2(OAUTH2).checks).toEqual(['state', 'pkce'])
    expect(oidc(OIDC).checks).toEqual(['state', 'pkce', 'nonce'])
  })

  it('names a provider after its id unless given a name', () => {
    expect(oauth2(OAUTH2)).toMatchObject({ id: 'corp', name: 'corp', type: 'oauth', protocol: 'oauth2' })
    expect(oauth2({ ...OAUTH2, name: 'Corp SSO' }).name).toBe('Corp SSO')
  })

  it('keeps the issuer exactly as written (a trailing slash is part of it) and asks for openid, email and profile', () => {
    expect(oidc(OIDC)).toMatchObject({
      issuer: OIDC.issuer,
      scope: 'openid email profile',
      protocol: 'oidc',
    })
    expect(oidc({ ...OIDC, scope: 'openid' }).scope).toBe('openid')
  })

  it('keeps a copy of the strategy options, frozen', () => {
    const provider = passportStrategy(OAUTH)
    expect(provider.options).toEqual(OAUTH.options)
    expect(provider.options).not.toBe(OAUTH.options)
    expect(Object.isFrozen(provider.options)).toBe(true)
  })
})

describe('auth() with OAuth providers', () => {
  const start = (providers: OAuthProvider[]) => {
    const logs: LogEntry[] = []
    auth({
      url: 'http://localhost:3000/api/auth',
      secret: 'x'.repeat(40),
      providers,
      logger: (entry) => logs.push(entry),
    })
    return logs.filter((entry) => entry.event === 'config.warning')
  }

  it("warns at start-up about a provider that drops 'pkce', and only about that one", () => {
    expect(start([oauth2({ ...OAUTH2, checks: ['state'] }), oauth2({ ...OAUTH2, id: 'safe' })])).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/provider corp runs without PKCE/) }),
    ])
  })
})

describe('extraParams', () => {
  it("passes the app's extra parameters on, never the protected ones", () => {
    const protectedNames = [
      'client_id',
      'redirect_uri',
      'response_type',
      'state',
      'nonce',
      'code_challenge',
      'code_challenge_method',
      'code_verifier',
    ]
    const query = new URLSearchParams([
      ...protectedNames.map((name): [string, string] => [name, 'attacker-chosen']),
      ['prompt', 'login'],
      ['login_hint', 'alice@example.com'],
    ])
    expect(extraParams(query)).toStrictEqual({ prompt: 'login', login_hint: 'alice@example.com' })
  })

  it('keeps the first value of a repeated parameter', () => {
    expect(extraParams(new URLSearchParams('prompt=login&prompt=none'))).toStrictEqual({ prompt: 'login' })
  })
})

describe('defaultProfile', () => {
  it('maps a Passport profile', () => {
    expect(
      defaultProfile({
        id: '42',
        displayName: 'Alice Example',
        emails: [{ value: 'alice@example.com' }],
        photos: [{ value: 'https://img.example.com/a.png' }],
      }),
    ).toStrictEqual({
      id: '42',
      name: 'Alice Example',
      email: 'alice@example.com',
      image: 'https://img.example.com/a.png',
    })
  })

  it('maps OpenID Connect claims, sub first', () => {
    expect(
      defaultProfile({
        sub: 'alice',
        id: 'not-this',
        name: 'Alice Example',
        email: 'alice@example.com',
        picture: 'https://img.example.com/a.png',
      }),
    ).toStrictEqual({
      id: 'alice',
      name: 'Alice Example',
      email: 'alice@example.com',
      image: 'https://img.example.com/a.png',
    })
  })

  it('maps GitHub-like userinfo: a numeric id, login as the name when there is none, avatar_url', () => {
    expect(
      defaultProfile({
        id: 583231,
        login: 'octocat',
        name: null,
        email: null,
        avatar_url: 'https://avatars.example.com/u/583231',
      }),
    ).toStrictEqual({ id: '583231', name: 'octocat', email: null, image: 'https://avatars.example.com/u/583231' })
  })

  it('gives an empty id and nulls for a profile it does not recognise', () => {
    expect(defaultProfile({ emails: 'not-a-list', photos: [{}] })).toStrictEqual({
      id: '',
      name: null,
      email: null,
      image: null,
    })
  })
})

describe('toTokens', () => {
  afterEach(restoreClock)

  it('keeps the token fields and computes expires_at from expires_in', () => {
    useClock(1_700_000_000.5) // half a second past a whole second: expires_at is rounded down
    expect(
      toTokens('at', 'rt', {
        id_token: 'idt',
        token_type: 'Bearer',
        scope: 'openid',
        expires_in: '3600',
        other: 'dropped',
      }),
    ).toStrictEqual({
      access_token: 'at',
      refresh_token: 'rt',
      id_token: 'idt',
      token_type: 'Bearer',
      scope: 'openid',
      expires_at: 1_700_003_600,
    })
  })

  it('leaves out expires_at, refresh_token and fields that are not strings when the provider gave none', () => {
    expect(toTokens('at', undefined, { expires_in: 'soon', id_token: 7 })).toStrictEqual({ access_token: 'at' })
    expect(toTokens('at', '', null)).toStrictEqual({ access_token: 'at' })
    expect(toTokens('at', undefined, { expires_in: -5 })).toStrictEqual({ access_token: 'at' })
  })
})
