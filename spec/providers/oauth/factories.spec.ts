import { Strategy } from 'passport'
import OAuth2Strategy from 'passport-oauth2'
import { auth, ConfigurationError, oauth2, oidc, passportStrategy, type LogEntry } from '../../../lib'
import type { OAuthProvider } from '../../../lib/features/oauth/types'
import { extraParams } from '../../../lib/features/oauth/authorize'
import { defaultProfile, toTokens } from '../../../lib/features/oauth/profile'
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
      /must be a non-empty string such as process\.env\.CLIENT_ID; got undefined/,
    )
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, clientSecret: '' }),
      'providers["corp"].clientSecret',
      /must be a non-empty string/,
    )
    expectConfigurationError(() => oidc({ ...OIDC, clientId: '' }), 'providers["idp"].clientId', /non-empty string/)
    expectConfigurationError(
      () => oidc({ ...OIDC, clientSecret: undefined as never }),
      'providers["idp"].clientSecret',
      /non-empty string/,
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

  it('takes acrValues: a list of acr values without spaces, and nothing else', () => {
    expect(oidc({ ...OIDC, acrValues: ['urn:a', 'urn:b', 'urn:a'] }).acrValues).toEqual(['urn:a', 'urn:b'])
    expect(oidc(OIDC).acrValues).toBeUndefined()
    for (const bad of [
      [],
      [''],
      ['urn:a b'],
      ['urn:a', 7],
      { 0: 'urn:a' },
      Array.from({ length: 17 }, (_, i) => `urn:${i}`),
    ])
      expectConfigurationError(
        () => oidc({ ...OIDC, acrValues: bad as never }),
        'providers["idp"].acrValues',
        /a list of 1 to 16 acr values \(strings without spaces\) that mean a second factor at this provider, such as \['urn:example:mfa'\], or left out/,
      )
    expectConfigurationError(
      () => oidc({ ...OIDC, acrValues: 'urn:a urn:b' as never }),
      'providers["idp"].acrValues',
      /is a list of acr values: write \["urn:a","urn:b"\]/,
    )
    expect(messageOf(() => oidc({ ...OIDC, acr_values: 'urn:a' } as never))).toMatch(
      /Did you mean `providers\["idp"\]\.acrValues`\?/,
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
      () => oidc({ ...OIDC, logout: 'everywhere' as never }),
      'providers["idp"].logout',
      /'local'.*or 'provider'/,
    )
    expectConfigurationError(
      () => oidc({ ...OIDC, endSessionUrl: 'https://idp.example.com/logout' }),
      'providers["idp"].endSessionUrl',
      /only with `logout: 'provider'`/,
    )
    expectConfigurationError(
      () => oidc({ ...OIDC, logout: 'provider', endSessionUrl: '/logout' }),
      'providers["idp"].endSessionUrl',
      /absolute http\(s\) URL/,
    )
    expect(oidc(OIDC).logout).toBe('local')
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

/** The message of the ConfigurationError `make` throws. */
function messageOf(make: () => unknown): string {
  let error: unknown
  try {
    make()
  } catch (caught) {
    error = caught
  }
  expect(error).toBeInstanceOf(ConfigurationError)
  return (error as Error).message
}

describe('provider factories: unknown options are refused, with the option meant', () => {
  const factories = {
    oauth2: (extra: object) => oauth2({ ...OAUTH2, ...extra }),
    oidc: (extra: object) => oidc({ ...OIDC, ...extra }),
    passportStrategy: (extra: object) => passportStrategy({ ...OAUTH, ...extra }),
  }
  const ids = { oauth2: 'corp', oidc: 'idp', passportStrategy: 'github' }

  it.each([
    // A near miss gets "did you mean", as auth() and its nested options do.
    ['oauth2', 'clientSecert', 'clientSecret'],
    ['oauth2', 'tokenurl', 'tokenUrl'],
    ['oidc', 'isuer', 'issuer'],
    ['oidc', 'nmae', 'name'],
    ['passportStrategy', 'stratgy', 'strategy'],
    ['passportStrategy', 'profil', 'profile'],
    // Passport's spellings and other usual mistakes get the option meant, and why.
    ['oauth2', 'clientID', 'clientId'],
    ['oidc', 'clientID', 'clientId'],
    ['oauth2', 'scopes', 'scope'],
    ['oidc', 'scopes', 'scope'],
    ['oauth2', 'userInfoUrl', 'userinfoUrl'],
    ['oauth2', 'authorizationURL', 'authorizationUrl'],
    ['oauth2', 'tokenURL', 'tokenUrl'],
    ['oidc', 'issuerUrl', 'issuer'],
    ['passportStrategy', 'clientID', 'options.clientID'],
    ['passportStrategy', 'clientId', 'options.clientID'],
    ['passportStrategy', 'scope', 'options.scope'],
  ] as const)('%s() refuses %s and names %s', (factory, key, meant) => {
    const where = `providers["${ids[factory]}"]`
    expect(messageOf(() => factories[factory]({ [key]: 'x' }))).toContain(
      `Unknown option \`${where}.${key}\`. Did you mean \`${where}.${meant}\`?`,
    )
  })

  it("says why Passport's clientID is refused by oauth2() and oidc()", () => {
    expect(messageOf(() => factories.oauth2({ clientID: 'app' }))).toMatch(/Passport.s spelling/)
    expect(messageOf(() => factories.oidc({ clientID: 'app' }))).toMatch(/Passport.s spelling/)
  })

  it('explains options that belong elsewhere: the callback URL, endpoints of a discovered issuer, an issuer in oauth2()', () => {
    for (const factory of ['oauth2', 'oidc', 'passportStrategy'] as const) {
      expect(messageOf(() => factories[factory]({ callbackURL: 'https://example.com/cb' }))).toMatch(
        /Unknown option `providers\["\w+"\]\.callbackURL`\. The package sets the callback URL itself, `\{url\}\/callback\/\{id\}`/,
      )
    }
    expect(messageOf(() => factories.oidc({ userinfoUrl: 'https://idp.example.com/me' }))).toMatch(
      /Unknown option `providers\["idp"\]\.userinfoUrl`\. oidc\(\) finds its endpoints by discovery from `issuer`; .* use oauth2\(\)/,
    )
    expect(messageOf(() => factories.oauth2({ issuer: 'https://idp.example.com' }))).toMatch(/use oidc\(/)
  })

  it('lists the known options when no key is near', () => {
    expect(messageOf(() => factories.oidc({ somethingElse: true }))).toBe(
      'Unknown option `providers["idp"].somethingElse`. Known options: id, name, checks, profile, tokens, issuer, clientId, clientSecret, scope, logout, endSessionUrl, acrValues.',
    )
  })

  it('takes tokens: true (keep the provider tokens) and refuses anything but a boolean', () => {
    expect(
      oidc({ id: 'idp', issuer: 'https://idp.example', clientId: 'a', clientSecret: 'b', tokens: true }).tokens,
    ).toBe(true)
    expect(
      oidc({ id: 'idp', issuer: 'https://idp.example', clientId: 'a', clientSecret: 'b', tokens: false }),
    ).not.toHaveProperty('tokens')
    expect(
      messageOf(() =>
        oidc({ id: 'idp', issuer: 'https://idp.example', clientId: 'a', clientSecret: 'b', tokens: 'yes' as never }),
      ),
    ).toBe(
      '`providers["idp"].tokens` must be true (keep the provider\'s tokens for getAccessToken) or false; got "yes"',
    )
  })

  it('refuses options that are not an object, naming the factory and its shape', () => {
    expect(messageOf(() => oidc(undefined as never))).toBe(
      'oidc() takes an options object such as { id, issuer, clientId, clientSecret }; got undefined',
    )
    expect(messageOf(() => oauth2('corp' as never))).toMatch(/^oauth2\(\) takes an options object .*; got "corp"$/)
    expect(messageOf(() => passportStrategy([] as never))).toMatch(/^passportStrategy\(\) takes an options object/)
  })
})

describe('provider factories: each kind of option is checked for its type', () => {
  it('strings: a name, a client id, a scope', () => {
    expectConfigurationError(
      () => oidc({ ...OIDC, name: 42 as never }),
      'providers["idp"].name',
      /non-empty string.*; got 42/,
    )
    expectConfigurationError(() => oauth2({ ...OAUTH2, clientId: 42 as never }), 'providers["corp"].clientId', /got 42/)
    expectConfigurationError(() => oauth2({ ...OAUTH2, scope: 7 as never }), 'providers["corp"].scope', /got 7/)
  })

  it('a scope given as a list: one string of space-separated scopes, written out', () => {
    expectConfigurationError(
      () => oidc({ ...OIDC, scope: ['openid', 'email'] as never }),
      'providers["idp"].scope',
      /is one string of space-separated scopes: write "openid email"/,
    )
  })

  it("an OpenID Connect scope without 'openid' (the issuer would send no ID token)", () => {
    expectConfigurationError(
      () => oidc({ ...OIDC, scope: 'email profile' }),
      'providers["idp"].scope',
      /must include 'openid'/,
    )
    expect(oidc({ ...OIDC, scope: 'email openid' }).scope).toBe('email openid')
  })

  it('functions: a profile mapper, a strategy class', () => {
    expectConfigurationError(() => oidc({ ...OIDC, profile: {} as never }), 'providers["idp"].profile', /got an object/)
    expectConfigurationError(
      () => passportStrategy({ ...OAUTH, strategy: 'passport-github2' as never }),
      'providers["github"].strategy',
      /strategy class.*; got "passport-github2"/,
    )
  })

  it('lists: checks must be an array of the known checks', () => {
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, checks: 'state' as never }),
      'providers["corp"].checks',
      /a list of 'state', 'pkce' and 'nonce'; got "state"/,
    )
  })

  it('URLs: an endpoint that is not a string', () => {
    expectConfigurationError(
      () => oauth2({ ...OAUTH2, tokenUrl: new URL('https://corp.example.com/token') as never }),
      'providers["corp"].tokenUrl',
      /absolute http\(s\) URL; got an object/,
    )
  })
})

/** passport-local's shape: a Passport strategy, but a password form, not OAuth 2. */
class PasswordStrategy extends Strategy {
  constructor(_options: object, _verify: unknown) {
    super()
  }
  override authenticate(): void {
    this.fail()
  }
}

/** A strategy with passport-oauth2's methods on its prototype that does not construct its client. */
class HollowOAuthStrategy extends PasswordStrategy {
  authorizationParams() {
    return {}
  }
  tokenParams() {
    return {}
  }
  userProfile(_token: string, done: (error: null, profile: object) => void) {
    done(null, {})
  }
}

describe('passportStrategy(): only strategies built on passport-oauth2', () => {
  const start = (provider: OAuthProvider) =>
    auth({ url: 'http://localhost:3000/api/auth', secret: 'x'.repeat(40), providers: [provider], logger: false })

  it('refuses a strategy that is not OAuth 2 (passport-local), saying what the package signs in with', () => {
    expect(
      messageOf(() =>
        passportStrategy({ id: 'local', strategy: PasswordStrategy, options: { usernameField: 'email' } }),
      ),
    ).toMatch(
      /^`providers\["local"\]\.strategy` is not an OAuth 2 strategy .*signs in with OAuth 2 and OpenID Connect strategies built on passport-oauth2 .*and with e-mail links \(email\(\)\)/,
    )
  })

  it('refuses at auth() a strategy whose instances have no passport-oauth2 client (no deadline could be set on its requests)', () => {
    const provider = passportStrategy({ id: 'hollow', strategy: HollowOAuthStrategy, options: {} })
    expect(messageOf(() => start(provider))).toMatch(
      /^`providers\["hollow"\]\.strategy` is not built on passport-oauth2 \(its instances have no passport-oauth2 client, `_oauth2`\)/,
    )
  })

  it("names the strategy's options when the strategy refuses them at auth()", () => {
    const provider = passportStrategy({ ...OAUTH, options: { ...OAUTH.options, clientID: '' } })
    expect(messageOf(() => start(provider))).toBe(
      '`providers["github"].options` were refused by the strategy: OAuth2Strategy requires a clientID option',
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
