import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'

/**
 * The demo's embedded identity provider: examples/idp/server.mjs (a real oidc-provider) in its own
 * process on 127.0.0.1, with one static client for the demo and one demo user. It runs only while
 * the demo runs.
 */
export interface EmbeddedIdp {
  issuer: string
  clientId: string
  clientSecret: string
  stop(): void
}

const CLIENT_ID = 'demo'
const CLIENT_SECRET = 'demo-client-secret'

function serverScript(): string {
  // From examples/demo (ts-node, tests) or dist/examples/demo (npm start).
  for (const up of ['..', '../../..']) {
    const candidate = path.resolve(__dirname, up, up === '..' ? 'idp/server.mjs' : 'examples/idp/server.mjs')
    if (existsSync(candidate)) return candidate
  }
  throw new Error('examples/idp/server.mjs not found')
}

export function startEmbeddedIdp(port: number, callbackUrl: string): Promise<EmbeddedIdp> {
  const config = {
    port,
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [callbackUrl],
        // Where the provider sends the browser back after the demo signs out there (`logout: 'provider'`).
        post_logout_redirect_uris: [callbackUrl.replace(/\/callback\/oidc$/, '/signout-callback/oidc')],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    users: [{ accountId: 'alice', name: 'Alice Example', email: 'alice@example.com' }],
    exitWhenStdinCloses: true,
  }
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [serverScript()], {
      env: { ...process.env, IDP_CONFIG: JSON.stringify(config) },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let errors = ''
    child.stderr!.on('data', (data: Buffer) => {
      errors += String(data)
    })
    child.once('exit', (code) =>
      reject(
        new Error(
          `the demo identity provider stopped (exit ${code}):\n${errors
            .split('\n')
            .filter((line) => !/WARNING|NOTICE|in-memory/i.test(line))
            .join('\n')}`,
        ),
      ),
    )
    child.stdout!.on('data', (data: Buffer) => {
      const ready = /IDP_READY (\S+)/.exec(String(data))
      if (!ready) return
      const stop = () => {
        child.kill('SIGTERM')
      }
      process.once('exit', stop)
      resolve({ issuer: ready[1]!, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, stop })
    })
  })
}
