import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { VIEWS_DIR, type Asset } from './render'

export type { Asset } from './render'

function asset(name: string): Asset {
  const file = path.join(VIEWS_DIR, name)
  const body = readFileSync(file)
  return Object.freeze({
    body,
    etag: `"${body.length.toString(36)}-${Math.floor(statSync(file).mtimeMs).toString(36)}"`,
  })
}

/** The sign-in page's passkey ceremony (views/passkey.js): no bundler, no library, no CDN. */
export const PASSKEY_SCRIPT = asset('passkey.js')
