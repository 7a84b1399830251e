import type { PasskeyInfo } from '../../lib'
import { readableTime } from './pages'

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The home page's passkeys for a signed-in user: the list (from `listPasskeys`) and "Add a
 * passkey", a form that the service's own script (`{base}/assets/passkey.js`) drives: it asks
 * `{base}/webauthn-options/passkey?action=register`, runs the browser's ceremony and posts the
 * answer to `{base}/callback/passkey`, which comes back here.
 */
export function passkeySection(basePath: string, passkeys: readonly PasskeyInfo[]): string {
  const items = passkeys.map(
    (passkey) =>
      `<li>${escape(passkey.name)}${passkey.model ? ` (${escape(passkey.model)})` : ''}, added ${escape(readableTime(passkey.createdAt))}` +
      `${passkey.lastUsedAt ? `, last used ${escape(readableTime(passkey.lastUsedAt))}` : ', not used yet'}</li>`,
  )
  return (
    `<h2>Passkeys</h2>` +
    (items.length ? `<ul class="passkeys">${items.join('')}</ul>` : '<p>You have no passkey yet.</p>') +
    `<form method="post" action="${escape(`${basePath}/callback/passkey`)}" data-passkey-action="register"` +
    ` data-passkey-options="${escape(`${basePath}/webauthn-options/passkey`)}" data-passkey-csrf="${escape(`${basePath}/csrf`)}" hidden>` +
    `<input type="hidden" name="csrfToken" value=""><input type="hidden" name="callbackUrl" value="/">` +
    `<input type="hidden" name="action" value="register"><input type="hidden" name="data" value="">` +
    `<button type="submit" class="button">Add a passkey</button>` +
    `<div class="alert" role="alert" data-passkey-error hidden><p>Adding a passkey did not work.</p></div></form>` +
    `<script src="${escape(`${basePath}/assets/passkey.js`)}"></script>`
  )
}

/** The home page's CSP with the passkey script (by its absolute URL, `{SERVICE_AUTH_URL}/assets/passkey.js`), and calls to this origin. */
export const passkeyPageCsp = (serviceUrl: string) =>
  `default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'; script-src ${serviceUrl}/assets/passkey.js; connect-src 'self'`
