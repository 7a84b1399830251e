import { ConfigurationError } from '../errors'
import { parseHttpUrl } from '../urls/http-url'
import { describe } from '../util/options'

/** A list of origins (`trustedOrigins`, `formActionOrigins`): each exactly an origin, no path. */
export function resolveOrigins(value: unknown, option: string): ReadonlySet<string> {
  if (value === undefined) return new Set()
  if (!Array.isArray(value))
    throw new ConfigurationError(
      `\`${option}\` must be an array of origins such as 'https://app.example.com'; got ${describe(value)}`,
    )
  return new Set(
    value.map((origin: unknown, index) => {
      const parsed = parseHttpUrl(origin)
      if (!parsed || parsed.origin !== String(origin).replace(/\/$/, '')) {
        throw new ConfigurationError(
          `\`${option}[${index}]\` must be an origin (scheme, host, port; no path) such as 'https://app.example.com'; got ${describe(origin)}`,
        )
      }
      return parsed.origin
    }),
  )
}
