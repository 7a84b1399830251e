import { randomBytes } from 'node:crypto'

/** The demo's settings, from the environment, with embedded defaults so that `npm start` just works. */
export interface DemoSettings {
  port: number
  url: string
  secret: string
  /** True when no SERVICE_AUTH_SECRET was given and a random one was made. */
  secretIsRandom: boolean
  /** An external OpenID Connect issuer (all three OIDC_* set), else null: the demo embeds its own. */
  oidc: { issuer: string; clientId: string; clientSecret: string } | null
  /** Where the embedded identity provider listens (127.0.0.1). */
  idpPort: number
}

export function readSettings(env: NodeJS.ProcessEnv): DemoSettings {
  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT must be a port number; got ${JSON.stringify(env.PORT)}`)
  const url = env.SERVICE_AUTH_URL || `http://localhost:${port}/api/auth`
  const given = env.SERVICE_AUTH_SECRET || undefined
  if (given !== undefined && given.length < 32) {
    fail(`SERVICE_AUTH_SECRET is ${given.length} characters long; it needs 32 or more (try: openssl rand -base64 32)`)
  }
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env
  const some = [issuer, clientId, clientSecret].filter(Boolean).length
  if (some > 0 && some < 3) fail('set all three of OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or none (the demo then runs its own identity provider)')
  const idpPort = Number(env.DEMO_IDP_PORT ?? port + 1)
  if (!Number.isInteger(idpPort) || idpPort <= 0 || idpPort > 65535) fail(`DEMO_IDP_PORT must be a port number; got ${JSON.stringify(env.DEMO_IDP_PORT)}`)
  return {
    port,
    url,
    secret: given ?? randomBytes(32).toString('base64url'),
    secretIsRandom: given === undefined,
    oidc: some === 3 ? { issuer: issuer!, clientId: clientId!, clientSecret: clientSecret! } : null,
    idpPort,
  }
}

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`)
  process.exit(1)
}
