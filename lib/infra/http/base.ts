import { isIP } from 'node:net'
import type { Request } from 'express'
import type { ResolvedConfig } from '../config'
import type { CookieSet } from '../config/cookies'
import { baseUrl, DEFAULT_BASE_PATH, type BaseUrl } from '../urls/base-url'
import { AuthError } from '../errors'
import { parseHttpUrl } from '../urls/http-url'
import { outsideText } from '../logger'

/** The service URL a request is served under, and the cookie set for its scheme. */
export function serviceFor(config: ResolvedConfig, req: Request): { base: BaseUrl; cookieSet: CookieSet } {
  const base = config.base ?? baseFromHeaders(req)
  return { base, cookieSet: base.secure ? config.cookies.secure : config.cookies.plain }
}

/**
 * With `trustHost` and no `url` only: the service URL from the (trusted) proxy's headers. A host
 * that is not a complete, valid host name, IPv4 or bracketed IPv6 address with an optional port
 * 1–65535 is refused with 400 (`InvalidHost`); nothing later can then fail to build a URL from it.
 */
export function baseFromHeaders(req: Request): BaseUrl {
  const host = first(req.headers['x-forwarded-host']) ?? req.headers.host ?? ''
  const proto =
    first(req.headers['x-forwarded-proto']) ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http')
  const origin = (proto === 'http' || proto === 'https') && isHost(host) ? originOf(`${proto}://${host}`) : null
  if (origin === null) throw new AuthError('InvalidHost', 'the Host header is not a host name')
  return baseUrl(origin, DEFAULT_BASE_PATH)
}

/**
 * The header's one value. A list (`evil.example, app.example`, or the header twice) is refused: its
 * first item is whatever the client sent, and which item the trusted proxy added is not ours to guess.
 */
function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? (value.length === 1 ? value[0] : ',') : value
  if (text?.includes(',')) throw new AuthError('InvalidHost', 'a forwarded header holds a list')
  return text?.trim() || undefined
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i
/** A last label that the URL parser reads as a number makes the whole name an IPv4 address. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|\d+)$/i
const PORT = /^\d{1,5}$/

/** `name[:port]`, `a.b.c.d[:port]` or `[v6][:port]`, checked completely and in linear time. */
export function isHost(host: string): boolean {
  if (host.length === 0 || host.length > 270) return false
  let port: string | undefined
  if (host.startsWith('[')) {
    const close = host.indexOf(']')
    if (close === -1 || isIP(host.slice(1, close)) !== 6) return false
    const rest = host.slice(close + 1)
    if (rest !== '' && !rest.startsWith(':')) return false
    port = rest === '' ? undefined : rest.slice(1)
  } else {
    const colon = host.indexOf(':')
    const name = colon === -1 ? host : host.slice(0, colon)
    port = colon === -1 ? undefined : host.slice(colon + 1)
    if (!isHostName(name)) return false
  }
  return port === undefined || (PORT.test(port) && Number(port) >= 1 && Number(port) <= 65535)
}

function isHostName(name: string): boolean {
  if (name.length > 253) return false
  const labels = name.split('.')
  if (!labels.every((label) => LABEL.test(label))) return false
  return !NUMERIC_LABEL.test(labels[labels.length - 1]!) || isIP(name) === 4
}

/** The URL parser's own origin for a host we accepted: the canonical form (default port dropped). */
function originOf(url: string): string | null {
  return parseHttpUrl(url)?.origin ?? null
}

/** How much of a request's Host a warning quotes: the header is the client's, never echoed whole. */
const HOST_QUOTE = 100

/**
 * The host a request was sent to, when it is not `url`'s: a sign of `url` (or SERVICE_AUTH_URL)
 * left behind when the app moved to another port or name. A proxy's X-Forwarded-Host, when present,
 * is the public one. For a warning only: nothing is built from it, and it is cut to 100 characters.
 */
export function foreignHost(hosts: ReadonlySet<string>, req: Request): string | null {
  const forwarded = req.headers['x-forwarded-host']
  const raw = (Array.isArray(forwarded) ? forwarded[0] : forwarded) ?? req.headers.host
  const host = raw?.split(',')[0]?.trim().toLowerCase()
  if (!host || hosts.has(host)) return null
  return outsideText(host, HOST_QUOTE)
}

/** The spellings of `url`'s host a request may use: its default port written out or not. Once, at start. */
export function hostsOf(base: BaseUrl): ReadonlySet<string> {
  const host = new URL(base.origin).host
  return new Set([host, `${host}${base.secure ? ':443' : ':80'}`])
}

/**
 * Whether a request carries X-Forwarded-For from a peer that Express does not trust: the app is
 * behind a proxy without `trust proxy`, so `req.ip` is the proxy's, and every user shares one rate
 * limit key.
 */
export function untrustedForwarding(req: Request): boolean {
  if (req.headers['x-forwarded-for'] === undefined) return false
  const trust: unknown = req.app.get('trust proxy fn')
  if (typeof trust !== 'function') return false
  return (trust as (address: string | undefined, hop: number) => boolean)(req.socket.remoteAddress, 0) !== true
}
