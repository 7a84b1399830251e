import { ConfigurationError } from '../errors'
import { parseHttpUrl } from './http-url'

/** The service URL, split once: every absolute URL the service emits is built from it. */
export interface BaseUrl {
  /** `http://localhost:3000` */
  readonly origin: string
  /** `/api/auth`: never empty, never with a trailing slash. */
  readonly path: string
  /** `http://localhost:3000/api/auth` */
  readonly href: string
  readonly secure: boolean
}

export const DEFAULT_BASE_PATH = '/api/auth'

export function parseBaseUrl(value: string, option: string): BaseUrl {
  const url = parseHttpUrl(value)
  if (!url)
    throw new ConfigurationError(
      `\`${option}\` must be an absolute http(s) URL such as 'https://example.com/api/auth'; got ${JSON.stringify(value)}`,
    )
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigurationError(
      `\`${option}\` must not carry credentials, a query or a fragment; got ${JSON.stringify(value)}`,
    )
  }
  if (url.pathname.includes(';')) {
    // Cookies are scoped to this path: a `;` would end their Path attribute and start another.
    throw new ConfigurationError(
      `\`${option}\` must not have a \`;\` in its path (cookies are scoped to it); got ${JSON.stringify(value)}`,
    )
  }
  return baseUrl(url.origin, url.pathname)
}

export function baseUrl(origin: string, pathname: string): BaseUrl {
  const trimmed = trimSlashes(pathname)
  const path = trimmed === '' ? DEFAULT_BASE_PATH : `/${trimmed}`
  return Object.freeze({ origin, path, href: origin + path, secure: origin.startsWith('https:') })
}

/**
 * `path` without its leading and trailing slashes, in linear time. (A regular expression such as
 * `/^\/+|\/+$/g` backtracks quadratically on a long run of slashes that is not at the end.)
 */
export function trimSlashes(path: string): string {
  let start = 0
  let end = path.length
  while (start < end && path.charCodeAt(start) === SLASH) start++
  while (end > start && path.charCodeAt(end - 1) === SLASH) end--
  return path.slice(start, end)
}

const SLASH = 0x2f
