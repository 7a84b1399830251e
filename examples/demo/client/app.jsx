// The demo's client page (GET /client): React and the NextAuth.js client (`next-auth/react` v4,
// unchanged) talking to the auth service. Bundled by ./bundle.ts when the demo starts.
//
// Plain JavaScript on purpose, like examples/idp/server.mjs: the project's TypeScript program has no
// DOM library and no React types, and the browser specs (spec/e2e/client.spec.ts) run this page.

import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { SessionProvider, signIn, signOut, useSession } from 'next-auth/react'

function SessionPanel() {
  const { data: session, status, update } = useSession()
  const [name, setName] = useState('')
  const user = session?.user
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
          <p>
            <label>
              New name <input value={name} onChange={(event) => setName(event.target.value)} />
            </label>{' '}
            {/* POST {base}/session: the demo's update callback decides what is kept. */}
            <button type="button" onClick={() => void update({ name })}>
              Change name
            </button>
          </p>
          <p>
            <button type="button" onClick={() => void signOut()}>
              Sign out
            </button>
          </p>
        </>
      ) : status === 'unauthenticated' ? (
        <>
          <p data-testid="user">You are not signed in.</p>
          <p>
            <button type="button" onClick={() => void signIn('oidc')}>
              Sign in with Demo
            </button>
          </p>
        </>
      ) : null}
    </>
  )
}

const root = document.getElementById('client-root')
// The page names the service's base path (SERVICE_AUTH_URL's path), so one bundle fits any setting.
createRoot(root).render(
  <SessionProvider basePath={root.dataset.basePath}>
    <SessionPanel />
  </SessionProvider>,
)
