import { isRespellable, respelling } from '../support/respell'
import { VECTORS } from '../support/sessions'
import type { CookiePair, CsrfPair } from './material'
import type { RawRequest } from './wire'

/**
 * A generated request as data: what fast-check generates, shrinks and prints. Values that only the
 * live service can give (a valid CSRF pair, a live session, a flow cookie) appear as references,
 * resolved when the case runs, so that a counterexample reads as "the CSRF cookie's value in the
 * session cookie, its 12th character replaced", not as a stale token.
 */
export interface Material {
  csrf: CsrfPair | null
  /** A session that opens: its cookies as the service set them. */
  session: CookiePair[]
  flow: CookiePair | null
}

export type Ref = 'csrfCookie' | 'csrfToken' | 'session' | 'flow'

export interface Mutation {
  /** Where, as a fraction of the length (so that it shrinks towards the start). */
  at: number
  /** `respell`: the same bytes spelled another way, in one base64url part (see `respell`). */
  op: 'replace' | 'delete' | 'insert' | 'truncate' | 'append' | 'respell'
  char: string
}

/** A value: literal text, or a real value of one of the service's purposes, maybe one byte off. */
export type Value = string | { ref: Ref; mutation: Mutation | null }

export type SessionSource = 'live' | keyof typeof VECTORS

export type CookieSpec =
  /** `name` '<flow>' is the name of the material's flow cookie. */
  | { kind: 'pair'; name: string; value: Value }
  /** A session token under the session cookie's name, whole or split into chunks of `split` characters. */
  | { kind: 'session'; source: SessionSource; split: number; mutation: Mutation | null }

export type CsrfMode = 'pair' | 'mismatch' | 'cookie-only' | 'token-only' | 'none'

export interface BodySpec {
  kind: 'form' | 'json' | 'raw' | 'multipart' | 'latin1-form' | 'utf16-json' | 'chunked-form'
  fields: Array<[string, Value | { json: unknown }]>
  /** The body of kind 'raw': JSON-ish text or bytes. */
  raw: string | Uint8Array
  /** Sent instead of the kind's own Content-Type (null: the kind's). */
  contentType: string | null
  /** A padding field of this many characters (the body limit is 64 KB). */
  pad: number
  /** Content-Length minus the real length: a body that stops short (the server waits, then 408) or runs on. */
  lengthDelta: number
}

export interface Case {
  method: string
  target: string
  /** Host and forwarded headers, then any others; the Cookie and body headers are added from the specs. */
  headers: Array<[string, string]>
  cookies: CookieSpec[]
  csrf: CsrfMode
  body: BodySpec | null
}

export const SESSION_COOKIE = 'auth.session-token'

/** A different string, by the mutation (replacing a character with itself would change nothing). */
export function mutate(value: string, mutation: Mutation): string {
  if (value === '') return mutation.char || 'x'
  const at = Math.min(value.length - 1, Math.floor(mutation.at * value.length))
  switch (mutation.op) {
    case 'replace': {
      const char = value[at] === mutation.char ? (mutation.char === 'A' ? 'B' : 'A') : mutation.char
      return value.slice(0, at) + char + value.slice(at + 1)
    }
    case 'delete':
      return value.slice(0, at) + value.slice(at + 1)
    case 'insert':
      return value.slice(0, at) + mutation.char + value.slice(at)
    case 'truncate':
      return value.slice(0, at)
    case 'append':
      return value + mutation.char
    case 'respell':
      return respell(value, mutation)
  }
}

/**
 * A twin: one base64url part of the value (the parts of a JWE, a CSRF cookie's token and MAC, a
 * whole token), picked by `at`, spelled another way that Node's lenient decoder reads as the same
 * bytes. A value with no such part (an address, a URL) gets `char` appended instead.
 */
function respell(value: string, { at, char }: Mutation): string {
  const pieces = value.split(/([.|])/)
  const parts = pieces.flatMap((piece, index) => (index % 2 === 0 && isRespellable(piece) ? [index] : []))
  if (parts.length === 0) return value + (char || 'x')
  const index = parts[Math.floor(at * parts.length)]!
  pieces[index] = respelling(pieces[index]!, char.charCodeAt(0) || 0)
  return pieces.join('')
}

export function resolve(value: Value, material: Material): string {
  if (typeof value === 'string') return value
  const real = {
    csrfCookie: material.csrf?.cookie.value ?? '',
    csrfToken: material.csrf?.token ?? '',
    session: material.session.map((cookie) => cookie.value).join(''),
    flow: material.flow?.value ?? '',
  }[value.ref]
  return value.mutation ? mutate(real, value.mutation) : real
}

/** The session token a cookie spec sends, before it is split. */
export function sessionToken(spec: Extract<CookieSpec, { kind: 'session' }>, material: Material): string {
  const token = spec.source === 'live' ? material.session.map((cookie) => cookie.value).join('') : VECTORS[spec.source]
  return spec.mutation ? mutate(token, spec.mutation) : token
}

/** The cookies a spec puts in the Cookie header, in order. */
export function cookiePairs(spec: CookieSpec, material: Material): CookiePair[] {
  if (spec.kind === 'pair') {
    const name = spec.name === '<flow>' ? (material.flow?.name ?? 'auth.flow.x') : spec.name
    return [{ name, value: resolve(spec.value, material) }]
  }
  const token = sessionToken(spec, material)
  if (spec.split === 0) return [{ name: SESSION_COOKIE, value: token }]
  const chunks: CookiePair[] = []
  for (let at = 0; at < token.length; at += spec.split)
    chunks.push({ name: `${SESSION_COOKIE}.${chunks.length}`, value: token.slice(at, at + spec.split) })
  return chunks
}

/** The request a case stands for, with the material of this run. */
export function toRequest(spec: Case, material: Material): RawRequest {
  const pairs = spec.cookies.flatMap((cookie) => cookiePairs(cookie, material))
  const csrf = material.csrf
  if (csrf && spec.csrf !== 'none' && spec.csrf !== 'token-only') pairs.push(csrf.cookie)
  const headers: Array<[string, string]> = [...spec.headers]
  if (pairs.length > 0) headers.push(['Cookie', pairs.map(({ name, value }) => `${name}=${value}`).join('; ')])
  if (!spec.body) return { method: spec.method, target: spec.target, headers }
  const fields = spec.body.fields.map(([name, value]): [string, unknown] => [
    name,
    typeof value === 'object' && 'json' in value ? value.json : resolve(value, material),
  ])
  // The real token where the mode says so: the case then gets past the CSRF check to the handler.
  const token = csrf?.token ?? ''
  if (spec.csrf === 'pair' || spec.csrf === 'token-only') fields.unshift(['csrfToken', token])
  if (spec.csrf === 'mismatch') fields.unshift(['csrfToken', `${token}x`])
  if (spec.body.pad > 0) fields.push(['pad', 'x'.repeat(spec.body.pad)])
  const { type, bytes, chunked } = encodeBody(spec.body, fields)
  headers.push(['Content-Type', spec.body.contentType ?? type])
  if (chunked) headers.push(['Transfer-Encoding', 'chunked'])
  const length = chunked ? undefined : bytes.length + spec.body.lengthDelta
  return { method: spec.method, target: spec.target, headers, body: bytes, contentLength: length }
}

/** Percent-encodes every byte but the unreserved ones (a lone surrogate goes as U+FFFD's bytes). */
export function percent(value: string): string {
  let out = ''
  for (const byte of Buffer.from(value, 'utf8'))
    out += /[\w.~-]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).padStart(2, '0')}`
  return out
}

function formText(fields: Array<[string, unknown]>): string {
  const text = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))
  return fields.map(([name, value]) => `${percent(name)}=${percent(text(value))}`).join('&')
}

function encodeBody(body: BodySpec, fields: Array<[string, unknown]>) {
  const FORM = 'application/x-www-form-urlencoded'
  switch (body.kind) {
    case 'form':
      return { type: FORM, bytes: Buffer.from(formText(fields)), chunked: false }
    case 'chunked-form': {
      const bytes = Buffer.from(formText(fields))
      const framed = Buffer.concat([
        Buffer.from(`${bytes.length.toString(16)}\r\n`),
        bytes,
        Buffer.from('\r\n0\r\n\r\n'),
      ])
      return { type: FORM, bytes: bytes.length === 0 ? Buffer.from('0\r\n\r\n') : framed, chunked: true }
    }
    case 'latin1-form':
      return {
        type: `${FORM}; charset=iso-8859-1`,
        bytes: Buffer.from(fields.map(([n, v]) => `${n}=${String(v)}`).join('&'), 'latin1'),
        chunked: false,
      }
    case 'json':
      return {
        type: 'application/json',
        bytes: Buffer.from(JSON.stringify(Object.fromEntries(fields))),
        chunked: false,
      }
    case 'utf16-json':
      return {
        type: 'application/json; charset=utf-16',
        bytes: Buffer.from(JSON.stringify(Object.fromEntries(fields)), 'utf16le'),
        chunked: false,
      }
    case 'multipart': {
      const parts = fields.map(
        ([name, value]) => `--x\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${String(value)}\r\n`,
      )
      return {
        type: 'multipart/form-data; boundary=x',
        bytes: Buffer.from(`${parts.join('')}--x--\r\n`),
        chunked: false,
      }
    }
    case 'raw':
      return {
        type: 'application/json',
        bytes: typeof body.raw === 'string' ? Buffer.from(body.raw) : Buffer.from(body.raw),
        chunked: false,
      }
  }
}

/**
 * A cookie value as the service reads it (cookie-parser over cookie 0.7): cut at `;`, trimmed,
 * unquoted when quoted at both ends, percent-decoded when that decodes. A change that these
 * undo (a trailing space, say) is no change at all.
 */
export function asRead(value: string): string {
  let read = value.split(';')[0]!.trim()
  if (read.length >= 2 && read.startsWith('"') && read.endsWith('"')) read = read.slice(1, -1)
  try {
    return read.includes('%') ? decodeURIComponent(read) : read
  } catch {
    return read
  }
}

/** Where a request's parameters travel: the query of a GET, or a POST's form or JSON body. */
export type Carrier = 'query' | 'form' | 'json'

/** A case with its parameters in the query or a body, and cookies as given. */
export function simpleCase(options: {
  host: string
  path: string
  carrier: Carrier
  method?: string
  params: Array<[string, string]>
  cookies: CookieSpec[]
  csrf: CsrfMode
}): Case {
  const { carrier, params } = options
  const query = carrier === 'query' ? new URLSearchParams(params).toString() : ''
  return {
    method: options.method ?? (carrier === 'query' ? 'GET' : 'POST'),
    target: `/api/auth/${options.path}${query ? `?${query}` : ''}`,
    headers: [['Host', options.host]],
    cookies: options.cookies,
    csrf: options.csrf,
    body:
      carrier === 'query'
        ? null
        : { kind: carrier, fields: params, raw: '', contentType: null, pad: 0, lengthDelta: 0 },
  }
}
