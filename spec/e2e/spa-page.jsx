// A single-page app on another origin than the auth service (spec/e2e/spa-access-token.spec.ts):
// React and the NextAuth.js client (`next-auth/react` v4, unchanged) signed in at the service, and
// an access token from `POST {base}/token` for an API on a third origin. Bundled by
// spec/support/spa-harness.ts, which substitutes the two addresses below.
//
// Plain JavaScript, as examples/demo/client/app.jsx: the project's TypeScript program has no DOM
// library and no React types.

/* global fetch, process, URL, URLSearchParams */
import { useState } from 'react'
import { createRoot } from 'react-dom/client'
import { SessionProvider, getCsrfToken, signIn, signOut, useSession } from 'next-auth/react'

/** The service's `url` (`http://localhost:A/api/auth`). */
const SERVICE = process.env.NEXTAUTH_URL
/** The API, as the service's `accessTokens.audiences` names it: the `resource` asked for. */
const API = process.env.SPA_API_URL

// The NextAuth client calls `fetch` without `credentials`, so across origins its requests would
// carry no cookie of the service and store none: the page adds `credentials: 'include'` to its
// requests to the service's origin, and to no other.
const serviceOrigin = new URL(SERVICE).origin
const pageFetch = window.fetch.bind(window)
window.fetch = (input, init) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url, window.location.href)
  return pageFetch(input, url.origin === serviceOrigin ? { ...init, credentials: 'include' } : init)
}

/** An access token for the API, with the session: `{ token }`, or `{ refused }` with the service's answer. */
async function askToken() {
  const csrfToken = await getCsrfToken()
  const answer = await fetch(`${SERVICE}/token`, {
    method: 'POST',
    credentials: 'include',
    body: new URLSearchParams({ csrfToken, resource: API }),
  })
  const body = await answer.json()
  return answer.ok ? { token: body.access_token } : { refused: `${answer.status} ${body.error}` }
}

/** GET {API}/me with the token: what the API answered, as one line. */
async function callApi(token) {
  const answer = await fetch(`${API}/me`, { headers: { Authorization: `Bearer ${token}` } })
  const body = await answer.json()
  return answer.ok
    ? `${answer.status} ${body.sub} from ${body.client_id}`
    : `${answer.status} ${body.error}: ${body.error_description}`
}

function ApiPanel() {
  const [token, setToken] = useState(null)
  const [result, setResult] = useState('')
  const callWithNewToken = async () => {
    const asked = await askToken()
    if (asked.refused) return setResult(`token refused: ${asked.refused}`)
    setToken(asked.token)
    setResult(`API: ${await callApi(asked.token)}`)
  }
  return (
    <>
      <button type="button" onClick={() => void callWithNewToken()}>
        Call the API
      </button>
      <button
        type="button"
        disabled={!token}
        onClick={() => void callApi(token).then((line) => setResult(`API: ${line}`))}
      >
        Call the API with the old token
      </button>
      <p data-testid="api">{result}</p>
    </>
  )
}

function SessionPanel() {
  const { data: session, status } = useSession()
  return (
    <>
      <p data-testid="status">{status}</p>
      {session ? (
        <>
          <p data-testid="user">
            Signed in as {session.user?.name} ({session.user?.email}).
          </p>
          <button type="button" onClick={() => void signOut({ redirect: false })}>
            Sign out
          </button>
        </>
      ) : status === 'unauthenticated' ? (
        <button type="button" onClick={() => void signIn('oidc', { callbackUrl: window.location.href })}>
          Sign in
        </button>
      ) : null}
      <ApiPanel />
    </>
  )
}

// In a browser the client sends its requests to `basePath` as given: the service's whole URL, on its origin.
createRoot(document.getElementById('root')).render(
  <SessionProvider basePath={SERVICE}>
    <SessionPanel />
  </SessionProvider>,
)
