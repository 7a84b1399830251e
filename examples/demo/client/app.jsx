// The demo's client page (GET /client): React and the NextAuth.js client (`next-auth/react` v4,
// unchanged) talking to the auth service. Bundled by ./bundle.ts when the demo starts.
//
// Plain JavaScript on purpose, like examples/idp/server.mjs: the project's TypeScript program has no
// DOM library and no React types, and the browser specs (spec/e2e/client.spec.ts) run this page.

/* global URL, URLSearchParams */
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { SessionProvider, signIn, signOut, useSession } from 'next-auth/react'
// NextAuth v5's own passkey client, unchanged: it asks {base}/webauthn-options/passkey, runs the
// browser's ceremony (@simplewebauthn/browser) and posts the answer to {base}/callback/passkey.
import { __NEXTAUTH, signIn as signInV5 } from 'next-auth-v5/react'
import { signIn as passkeySignIn } from 'next-auth-v5/webauthn'

/** The user's picture when the page's CSP lets it load: https:, or the embedded provider's origin. */
function pictureUrl(image, pictureOrigin) {
  if (typeof image !== 'string' || !URL.canParse(image)) return null
  const url = new URL(image)
  return url.protocol === 'https:' || url.origin === pictureOrigin ? url.href : null
}

/**
 * signIn('passkey', { action: 'register' }) without its redirect, so that a refusal can be told
 * apart: the v5 client answers undefined (and logs the service's answer) when the options request
 * was refused, as it is for a session signed in longer ago than `registrationMaxAge` (the demo's
 * default, five minutes), and `{ error }` when the answer was; else the passkey was added.
 */
async function addPasskey(onRefused) {
  const result = await passkeySignIn('passkey', { action: 'register', redirect: false })
  if (result && !result.error) window.location.reload()
  else onRefused()
}

/** The sign-in page, and back here: a fresh sign-in may add a passkey. */
function signInAgainUrl() {
  const query = new URLSearchParams({ callbackUrl: window.location.href })
  return `${root.dataset.basePath}/signin?${query}`
}

/**
 * signIn('credentials', { email, password, redirect: false }) with either client: v4's (the
 * SessionProvider's own, which then reads the new session) or v5's (a module of its own: the page
 * reloads to show the session). A refusal answers `{ error: 'CredentialsSignin' }`.
 */
function PasswordForm() {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [refused, setRefused] = useState(false)
  const submit = async (client) => {
    setRefused(false)
    const signInWith = client === 'v5' ? signInV5 : signIn
    const result = await signInWith('credentials', { email, password, redirect: false })
    if (!result || result.error) return setRefused(true)
    if (client === 'v5') window.location.reload()
  }
  return (
    <form onSubmit={(event) => event.preventDefault()}>
      <label htmlFor="password-email">Email</label>
      <input
        id="password-email"
        type="email"
        autoComplete="username"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <label htmlFor="password-password">Password</label>
      <input
        id="password-password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
      />
      <button className="button" type="button" onClick={() => void submit('v4')}>
        Sign in with password
      </button>
      <button className="button" type="button" onClick={() => void submit('v5')}>
        Sign in with password (v5 client)
      </button>
      {refused ? (
        <div className="alert" role="alert">
          <p>That email and password did not sign you in.</p>
        </div>
      ) : null}
    </form>
  )
}

function SessionPanel({ pictureOrigin }) {
  const { data: session, status, update } = useSession()
  const [name, setName] = useState('')
  const [passkeyRefused, setPasskeyRefused] = useState(false)
  const user = session?.user
  const picture = pictureUrl(user?.image, pictureOrigin)
  return (
    <>
      <p>
        Status: <strong data-testid="status">{status}</strong>
      </p>
      {/* On `session`, not `status`: update() reports 'loading' while it runs, and the form stays. */}
      {session ? (
        <>
          <p data-testid="user">
            Signed in as <strong>{user?.name || user?.email || 'someone'}</strong>
            {user?.name && user.email ? ` (${user.email})` : ''}.
          </p>
          {picture ? (
            <p className="picture">
              <img src={picture} alt="" width="64" height="64" referrerPolicy="no-referrer" />
            </p>
          ) : null}
          <form
            onSubmit={(event) => {
              event.preventDefault()
              // POST {base}/session: the demo's update callback decides what is kept.
              void update({ name })
            }}
          >
            <label htmlFor="new-name">New name</label>
            <input id="new-name" type="text" value={name} onChange={(event) => setName(event.target.value)} />
            <button className="button" type="submit">
              Change name
            </button>
          </form>
          <button className="button" type="button" onClick={() => void addPasskey(() => setPasskeyRefused(true))}>
            Add a passkey
          </button>
          {passkeyRefused ? (
            <div className="alert" role="alert">
              <p>
                Adding a passkey did not work. It needs a sign-in of the last five minutes: if yours is older,{' '}
                <a href={signInAgainUrl()}>sign in again</a> first, then add it.
              </p>
            </div>
          ) : null}
          <button className="button" type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </>
      ) : status === 'unauthenticated' ? (
        <>
          <p data-testid="user">You are not signed in.</p>
          <button className="button" type="button" onClick={() => void signIn('oidc')}>
            Sign in with Demo
          </button>
          <button className="button" type="button" onClick={() => void passkeySignIn('passkey')}>
            Sign in with a passkey
          </button>
          <PasswordForm />
        </>
      ) : null}
    </>
  )
}

const root = document.getElementById('client-root')
// The v5 passkey client reads the base path from its own module's settings (NEXTAUTH_URL, unset here).
__NEXTAUTH.basePath = root.dataset.basePath
// The page names the service's base path (SERVICE_AUTH_URL's path), so one bundle fits any setting.
createRoot(root).render(
  <SessionProvider basePath={root.dataset.basePath}>
    <SessionPanel pictureOrigin={root.dataset.pictureOrigin ?? null} />
  </SessionProvider>,
)
