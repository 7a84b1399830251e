import { join } from 'node:path'
import { freePort, startProcess, type Started } from './process'

const root = join(__dirname, '../..')

export interface Demo {
  process: Started
  origin: string
  base: string
}

/**
 * The demo from its TypeScript, as the browser specs start it (no build to wait for or to share),
 * with `env` over settings that keep it to itself: no Redis, no PostgreSQL, no mail server.
 */
export async function startDemo(env: Record<string, string> = {}): Promise<Demo> {
  const [port, idpPort] = await Promise.all([freePort(), freePort()])
  const origin = `http://localhost:${port}`
  const process_ = await startProcess(
    process.execPath,
    ['--require', join(root, 'spec/e2e/esbuild-child.js'), join(root, 'examples/demo/server.ts')],
    {
      env: {
        PORT: String(port),
        DEMO_IDP_PORT: String(idpPort),
        SERVICE_AUTH_URL: '',
        SERVICE_AUTH_SECRET: '',
        SMTP_URL: '',
        EMAIL_FROM: '',
        REDIS_URL: '',
        DATABASE_URL: '',
        OIDC_ISSUER: '',
        OIDC_CLIENT_ID: '',
        OIDC_CLIENT_SECRET: '',
        ...env,
      },
      ready: /listening on http/,
      timeoutMs: 30_000,
    },
  )
  return { process: process_, origin, base: `${origin}/api/auth` }
}
