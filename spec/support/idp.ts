import { spawn, type ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'
import path from 'node:path'

/**
 * Starts the test identity provider (examples/idp/server.mjs, a real oidc-provider) as a child
 * process: oidc-provider is ESM-only, which jest cannot load in-process.
 *
 *   const idp = await startIdp({ clients: [{ client_id: 'app', client_secret: 's', redirect_uris: [cb] }] })
 *   // … idp.issuer is e.g. http://127.0.0.1:43123; discovery at `${idp.issuer}/.well-known/openid-configuration`
 *   await idp.stop()
 */

export const IDP_SERVER = path.resolve(__dirname, '..', '..', 'examples', 'idp', 'server.mjs')

/** A static confidential client (any other oidc-provider client metadata may be added). */
export interface IdpClient {
  client_id: string
  client_secret: string
  redirect_uris: string[]
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt'
  post_logout_redirect_uris?: string[]
  [metadata: string]: unknown
}

export interface IdpUser {
  /** The `sub`, and what the login form accepts (as does the e-mail). */
  accountId: string
  /** Without one, any password is accepted. */
  password?: string
  name: string
  email: string
  /** The `email_verified` claim; default true. False: a provider that did not check the address. */
  emailVerified?: boolean
  /** Defaults to an avatar the IdP serves itself. */
  picture?: string
  /** The `amr` of this user's ID tokens (RFC 8176 methods); default none. */
  amr?: string[]
  /** The `acr` of this user's ID tokens; default none. */
  acr?: string
  /** This user's sign-ins are recorded as made this many seconds ago: an old `auth_time`, even after `prompt=login`. */
  authTimeAgo?: number
}

export const DEMO_USERS: readonly IdpUser[] = [
  { accountId: 'alice', name: 'Alice Example', email: 'alice@example.com' },
]

export interface StartIdpOptions {
  clients: IdpClient[]
  /** Default: DEMO_USERS (alice, any password). */
  users?: readonly IdpUser[]
  /** Default 0: a free port. */
  port?: number
  /** Default http://127.0.0.1:<port>; used verbatim (so give a port with it). */
  issuer?: string
  /** Default true: the authorization request must carry an S256 code_challenge. */
  requirePkce?: boolean
  /** Default false: ID tokens carry name/email/picture. True: only userinfo does (oidc-provider's default). */
  conformIdTokenClaims?: boolean
  /**
   * Default false. True: oidc-provider's backchannelLogout feature is on (clients register
   * `backchannel_logout_uri`), and its server may call loopback addresses.
   */
  backchannelLogout?: boolean
  /** Refresh tokens (offline_access) for clients allowed the refresh_token grant. Default false. */
  refreshTokens?: boolean
  /** A new refresh token on each refresh, reuse of a consumed one revoking the grant. Default false. */
  rotateRefreshToken?: boolean
  /** Seconds the code grant's access tokens live (default 3600). */
  accessTokenTtl?: number
  /** Seconds the refresh grant's access tokens live (default 3600). */
  refreshedAccessTokenTtl?: number
  /** Serve GET /test/grants: `{ refresh, revoked }` counts (read with `grantCounts(idp)`). */
  countGrants?: boolean
  /** Every token request answered this many ms later, so that concurrent refreshes overlap. */
  tokenEndpointDelayMs?: number
  /** Serve PUT /test/users/:accountId, so that `editUser(idp, …)` changes a user's claims. Default false. */
  editableUsers?: boolean
  /** How long to wait for IDP_READY; default 15 s. */
  timeoutMs?: number
  /** Echo the IdP's stderr (its errors and rejected requests) to ours. */
  verbose?: boolean
}

export interface Idp {
  issuer: string
  clients: IdpClient[]
  users: IdpUser[]
  /** Everything the IdP wrote to stderr so far: why it rejected a request, server errors. */
  logs(): string
  /** Stops the process and waits for it to exit (idempotent). */
  stop(): Promise<void>
}

const running = new Set<ChildProcess>()
let exitHookInstalled = false

export function startIdp(options: StartIdpOptions): Promise<Idp> {
  const users = [...(options.users ?? DEMO_USERS)]
  const config = {
    port: options.port ?? 0,
    issuer: options.issuer,
    clients: options.clients,
    users,
    requirePkce: options.requirePkce,
    conformIdTokenClaims: options.conformIdTokenClaims,
    backchannelLogout: options.backchannelLogout,
    refreshTokens: options.refreshTokens,
    rotateRefreshToken: options.rotateRefreshToken,
    accessTokenTtl: options.accessTokenTtl,
    refreshedAccessTokenTtl: options.refreshedAccessTokenTtl,
    countGrants: options.countGrants,
    tokenEndpointDelayMs: options.tokenEndpointDelayMs,
    editableUsers: options.editableUsers,
    // If this process dies without calling stop(), the IdP sees its stdin close and exits.
    exitWhenStdinCloses: true,
  }
  const child = spawn(process.execPath, [IDP_SERVER], {
    env: { ...process.env, IDP_CONFIG: JSON.stringify(config) },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  running.add(child)
  installExitHook()

  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-65536)
    if (options.verbose) process.stderr.write(chunk)
  })
  child.on('error', (error) => {
    stderr += `\n[spawn/kill error: ${error.message}]`
  })
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child)
      resolve()
    }),
  )

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.ref() // keep this process alive until the exit is seen
      child.kill('SIGTERM')
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(kill)
    }
  }

  return new Promise<Idp>((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 15000
    const failed = (reason: string): void => {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(new Error(`test IdP ${reason}${stderr ? `; its stderr:\n${stderr}` : ' (no stderr)'}`))
    }
    const onError = (error: Error): void => failed(`could not be spawned: ${error.message}`)
    const onEarlyExit = (code: number | null, signal: string | null): void =>
      failed(`exited before it was ready (code ${code}, signal ${signal})`)
    const timer = setTimeout(() => failed(`did not print IDP_READY within ${timeoutMs} ms`), timeoutMs)
    // 'close', not 'exit': it comes once stderr is fully read, so the error message is complete.
    child.once('error', onError).once('close', onEarlyExit)

    let stdout = ''
    const onData = (chunk: string): void => {
      stdout += chunk
      const ready = /^IDP_READY (\S+)$/m.exec(stdout)
      if (!ready?.[1]) return
      clearTimeout(timer)
      child.off('error', onError).off('close', onEarlyExit)
      child.stdout.off('data', onData).resume()
      // From now on the IdP does not keep this process alive: a spec that forgets stop() does not
      // hang jest, and the IdP then exits with us (exit hook, or its stdin closing).
      child.unref()
      for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as Socket).unref()
      resolve({ issuer: ready[1], clients: options.clients, users, logs: () => stderr, stop })
    }
    child.stdout.setEncoding('utf8').on('data', onData)
  })
}

/**
 * Outside jest, kills what is left when this process exits. (Inside jest the sandboxed `process`
 * never sees 'exit': there the IdP's stdin lifeline does the job when the worker goes away.)
 */
function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL')
  })
}

/** The refresh grants the IdP served and the grants it revoked so far (an IdP started with `countGrants`). */
export async function grantCounts(idp: Idp): Promise<{ refresh: number; revoked: number }> {
  const res = await fetch(`${idp.issuer}/test/grants`)
  if (!res.ok) throw new Error(`GET /test/grants answered ${res.status}: start the IdP with countGrants`)
  return (await res.json()) as { refresh: number; revoked: number }
}

/** Revokes every grant the IdP issued tokens for (a user withdrawing consent); an IdP started with `countGrants`. */
export async function revokeGrants(idp: Idp): Promise<void> {
  const res = await fetch(`${idp.issuer}/test/revoke-grants`, { method: 'POST' })
  if (!res.ok) throw new Error(`POST /test/revoke-grants answered ${res.status}: start the IdP with countGrants`)
}

/**
 * What the IdP says of a known `sub` from its next token on (an IdP started with `editableUsers`):
 * a user who changed their address at the provider, or a provider that lets anyone claim one.
 */
export async function editUser(
  idp: Idp,
  accountId: string,
  changes: Partial<Pick<IdpUser, 'name' | 'email' | 'emailVerified'>>,
): Promise<void> {
  const res = await fetch(`${idp.issuer}/test/users/${encodeURIComponent(accountId)}`, {
    method: 'PUT',
    body: JSON.stringify(changes),
  })
  if (res.status !== 204) throw new Error(`PUT /test/users answered ${res.status}: start the IdP with editableUsers`)
}
