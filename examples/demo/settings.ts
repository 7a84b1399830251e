import { randomBytes } from 'node:crypto'

/** The demo's settings, from the environment, with embedded defaults so that `npm start` just works. */
export interface DemoSettings {
  port: number
  /** The service URL as the package reads it: origin and base path, no trailing slash. */
  url: string
  /** The path of `url` (`/api/auth` when it has none): where the demo mounts the auth router. */
  basePath: string
  secret: string
  /** True when no SERVICE_AUTH_SECRET was given and a random one was made. */
  secretIsRandom: boolean
  /** An external OpenID Connect issuer (all three OIDC_* set), else null: the demo embeds its own. */
  oidc: { issuer: string; clientId: string; clientSecret: string } | null
  /** Where the embedded identity provider listens (127.0.0.1). */
  idpPort: number
  /**
   * The SMTP server that sends the sign-in mails (SMTP_URL, smtp:// or smtps://), else null: the demo
   * then prints each link to its console instead of mailing it.
   */
  smtpUrl: string | null
  /** The sender of the sign-in mails (EMAIL_FROM, `auth@localhost` by default). */
  emailFrom: string
  /**
   * REDIS_URL (redis:// or rediss://, with an optional /database number), else null: sessions
   * (database strategy), sign-in links and rate limits then live in Redis instead of the cookie and
   * this process's memory.
   */
  redisUrl: string | null
  /**
   * DATABASE_URL (postgres:// or postgresql://), else null: the demo's accounts (users and their
   * ways in) then live in PostgreSQL, whatever REDIS_URL says; without either, in this process.
   */
  databaseUrl: string | null
  /**
   * BREACHED_RANGE_URL: a breached-password range API of your own (or the specs' local one) for
   * password(); else null: Have I Been Pwned's public one (the check lets a password through, and
   * logs it, when that cannot be reached in 2 s).
   */
  breachedRangeUrl: string | null
}

export function readSettings(env: NodeJS.ProcessEnv): DemoSettings {
  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`PORT must be a port number; got ${JSON.stringify(env.PORT)}`)
  const { url, basePath } = serviceUrl(env.SERVICE_AUTH_URL || `http://localhost:${port}/api/auth`)
  const given = env.SERVICE_AUTH_SECRET || undefined
  if (given !== undefined && given.length < 32) {
    fail(`SERVICE_AUTH_SECRET is ${given.length} characters long; it needs 32 or more (try: openssl rand -base64 32)`)
  }
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env
  const some = [issuer, clientId, clientSecret].filter(Boolean).length
  if (some > 0 && some < 3)
    fail(
      'set all three of OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or none (the demo then runs its own identity provider)',
    )
  const idpPort = Number(env.DEMO_IDP_PORT ?? port + 1)
  if (!Number.isInteger(idpPort) || idpPort <= 0 || idpPort > 65535)
    fail(`DEMO_IDP_PORT must be a port number; got ${JSON.stringify(env.DEMO_IDP_PORT)}`)
  const smtpUrl = env.SMTP_URL ? checkSmtpUrl(env.SMTP_URL) : null
  const emailFrom = env.EMAIL_FROM || 'auth@localhost'
  // It goes into a mail header: one line without control or direction characters, as email() takes it.
  if (emailFrom.length > 320 || /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(emailFrom))
    fail('EMAIL_FROM must be the sender on one line of 320 characters at most, such as "Demo <auth@example.com>"')
  const redisUrl = env.REDIS_URL ? checkRedisUrl(env.REDIS_URL) : null
  const databaseUrl = env.DATABASE_URL ? checkDatabaseUrl(env.DATABASE_URL) : null
  return {
    port,
    url,
    basePath,
    secret: given ?? randomBytes(32).toString('base64url'),
    secretIsRandom: given === undefined,
    oidc: some === 3 ? { issuer: issuer!, clientId: clientId!, clientSecret: clientSecret! } : null,
    idpPort,
    smtpUrl,
    emailFrom,
    redisUrl,
    databaseUrl,
    breachedRangeUrl: env.BREACHED_RANGE_URL ? checkRangeUrl(env.BREACHED_RANGE_URL) : null,
  }
}

/** BREACHED_RANGE_URL: an http(s) URL to which the 5-digit prefix is appended. */
function checkRangeUrl(value: string): string {
  if (!/^https?:\/\//.test(value) || !URL.canParse(value))
    fail('BREACHED_RANGE_URL must be an http(s) URL such as https://api.pwnedpasswords.com/range/')
  return value
}

/** REDIS_URL as ioredis takes it. The refusal never repeats the value: it may hold a password. */
function checkRedisUrl(value: string): string {
  const expected = 'REDIS_URL must be a redis:// or rediss:// URL such as redis://localhost:6379/0'
  const parsed = serverUrl(value, expected, ['redis:', 'rediss:'])
  if (!/^\/?\d{0,2}$/.test(parsed.pathname)) fail(`${expected}; the path may only be a database number`)
  return value
}

/** DATABASE_URL as node-postgres takes it. The refusal never repeats the value: it may hold a password. */
function checkDatabaseUrl(value: string): string {
  const expected = 'DATABASE_URL must be a postgres:// or postgresql:// URL such as postgres://localhost:5432/demo'
  serverUrl(value, expected, ['postgres:', 'postgresql:'])
  return value
}

/**
 * SMTP_URL as nodemailer takes it (smtp://host:port, smtps://user:pass@host, options in the query).
 * The refusal never repeats the value: it may hold the server's password.
 */
function checkSmtpUrl(value: string): string {
  const expected =
    'SMTP_URL must be an smtp:// or smtps:// URL such as smtp://localhost:25 or smtps://user:pass@smtp.example.com'
  serverUrl(value, expected, ['smtp:', 'smtps:'])
  return value
}

/** A server's URL with one of `protocols` and a host, else a stop that says `expected` and what was wrong. */
function serverUrl(value: string, expected: string, protocols: readonly string[]): URL {
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    fail(`${expected}; got something that is not a URL`)
  }
  if (!protocols.includes(parsed.protocol)) fail(`${expected}; got a URL starting with "${parsed.protocol}"`)
  if (!parsed.hostname) fail(`${expected}; got one without a host`)
  return parsed
}

/** SMTP_URL without its credentials, for the demo's console. */
export function smtpUrlForDisplay(value: string): string {
  return withoutCredentials(value)
}

/** REDIS_URL without its user and password. */
export function redisUrlForDisplay(value: string): string {
  return withoutCredentials(value)
}

/** DATABASE_URL without its user, password and options (which may name a password file). */
export function databaseUrlForDisplay(value: string): string {
  return withoutCredentials(value)
}

/** BREACHED_RANGE_URL without credentials or a query (a mirror's key may sit in either). */
export function rangeUrlForDisplay(value: string): string {
  return withoutCredentials(value)
}

function withoutCredentials(value: string): string {
  const url = new URL(value)
  url.username = ''
  url.password = ''
  url.search = ''
  return url.href
}

/**
 * SERVICE_AUTH_URL split the way the package splits it (lib/infra/urls/base-url.ts): the origin, and the path
 * without trailing slashes, `/api/auth` when there is none. The demo mounts the router at that path,
 * links its pages under it and registers `{url}/callback/oidc` with its identity provider, so all
 * three agree with the URLs the package emits.
 */
function serviceUrl(value: string): { url: string; basePath: string } {
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    fail(
      `SERVICE_AUTH_URL must be an absolute http(s) URL such as http://localhost:3000/api/auth; got ${JSON.stringify(value)}`,
    )
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    fail(
      `SERVICE_AUTH_URL must be an absolute http(s) URL such as http://localhost:3000/api/auth; got ${JSON.stringify(value)}`,
    )
  }
  if (parsed.username || parsed.password || parsed.search || parsed.hash) {
    fail(`SERVICE_AUTH_URL must not carry credentials, a query or a fragment; got ${JSON.stringify(value)}`)
  }
  let start = 0
  let end = parsed.pathname.length
  while (start < end && parsed.pathname[start] === '/') start++
  while (end > start && parsed.pathname[end - 1] === '/') end--
  const basePath = start === end ? '/api/auth' : `/${parsed.pathname.slice(start, end)}`
  return { url: parsed.origin + basePath, basePath }
}

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`)
  process.exit(1)
}
