import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { VIEWS_DIR, type Asset } from './render'

export type { Asset } from './render'

/** A file of views/ served as it is (a script, say), with its ETag, read once when the module that serves it loads. */
export function asset(name: string): Asset {
  const file = path.join(VIEWS_DIR, name)
  const body = readFileSync(file)
  return Object.freeze({
    body,
    etag: `"${body.length.toString(36)}-${Math.floor(statSync(file).mtimeMs).toString(36)}"`,
  })
}
