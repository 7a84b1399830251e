/**
 * The one URL check of the package: `value` as an absolute http(s) URL (resolved against `base`
 * when given), or null for anything else. Never throws. Every option and every request value that
 * names a URL goes through here before any other rule of its own.
 */
export function parseHttpUrl(value: unknown, base?: string): URL | null {
  if (typeof value !== 'string') return null
  let url: URL
  try {
    url = new URL(value, base)
  } catch {
    return null
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null
}
