import type { Request } from 'express'
import { ConfigurationError } from '../errors'

/**
 * The request's path relative to the base path, given where the host app mounted the router:
 * at the base path, at the root (the router then serves under the base path by itself), or at a
 * suffix of the base path (a proxy strips a prefix). Null: not a request for this service.
 * Any other mount path is a configuration error naming both paths.
 */
/**
 * A request target in absolute-form (`GET http://host/api/auth/csrf`, which RFC 9112 3.2.2 says a
 * server must accept) keeps its scheme and authority in `req.url`: only the path is ours. The
 * authority is not read: the service's URL comes from `url` (or, with trustHost, the headers).
 */
function pathOnly(target: string): string {
  if (target.startsWith('/')) return target
  const scheme = target.indexOf('://')
  if (scheme === -1) return target
  const slash = target.indexOf('/', scheme + 3)
  return slash === -1 ? '/' : target.slice(slash)
}

export function relativePath(req: Request, basePath: string): string | null {
  const url = req.url
  const query = url.indexOf('?')
  const path = pathOnly(query === -1 ? url : url.slice(0, query))
  const mount = req.baseUrl
  if (mount === '') {
    if (path.length < basePath.length || path.slice(0, basePath.length).toLowerCase() !== basePath.toLowerCase())
      return null
    const rest = path.slice(basePath.length)
    if (rest !== '' && rest[0] !== '/') return null
    return rest === '' ? '/' : rest
  }
  const lowerBase = basePath.toLowerCase()
  const lowerMount = mount.toLowerCase()
  if (
    lowerBase === lowerMount ||
    (lowerBase.endsWith(lowerMount) && lowerBase[lowerBase.length - lowerMount.length] === '/')
  )
    return path
  throw new ConfigurationError(
    `the auth router is mounted at "${mount}" but the service's base path is "${basePath}" (from \`url\` or SERVICE_AUTH_URL): ` +
      `mount it with app.use('${basePath}', auth(…)), or at the root, or change \`url\` so that its path ends in "${mount}"`,
  )
}

/**
 * The mount path when it is a suffix of the base path and not the base path itself (a proxy strips
 * the rest): the redirects of requireAuth() and of the pages go to the base path, which the app
 * (or its proxy) must then serve. Null for any other mount.
 */
export function suffixMount(req: Request, basePath: string): string | null {
  const mount = req.baseUrl
  if (mount === '' || mount.toLowerCase() === basePath.toLowerCase()) return null
  return basePath.toLowerCase().endsWith(mount.toLowerCase()) ? mount : null
}
