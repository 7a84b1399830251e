import { randomBytes } from 'node:crypto'

/** The demo's settings, from the environment, with embedded defaults so that `npm start` just works. */
export interface DemoSettings {
  port: number
  url: string
  secret: string
  /** True when no SERVICE_AUTH_SECRET was given and a random one was made. */
  secretIsRandom: boolean
}

export function readSettings(env: NodeJS.ProcessEnv): DemoSettings {
  const port = Number(env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT must be a port number; got ${JSON.stringify(env.PORT)}`)
  const url = env.SERVICE_AUTH_URL || `http://localhost:${port}/api/auth`
  const given = env.SERVICE_AUTH_SECRET || undefined
  if (given !== undefined && given.length < 32) {
    fail(`SERVICE_AUTH_SECRET is ${given.length} characters long; it needs 32 or more (try: openssl rand -base64 32)`)
  }
  return { port, url, secret: given ?? randomBytes(32).toString('base64url'), secretIsRandom: given === undefined }
}

function fail(message: string): never {
  process.stderr.write(`demo: ${message}\n`)
  process.exit(1)
}
