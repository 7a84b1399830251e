import fc from 'fast-check'
import { headerText } from './arbitraries'
import { anyRequest } from './requests'
import { runCase, type Fuzzing } from './run'
import { params, timeoutFor } from './settings'

/**
 * Any request gets a safe answer that stays on the request's own origin, with `trustHost: true` and
 * no `url`: the service URL comes from the request's own
 * X-Forwarded-Host (else Host) and X-Forwarded-Proto. What is right there: the service has no
 * origin of its own, so the site of a request is the one its (trusted proxy's) headers name, and
 * everything must agree on that one origin. Every redirect, JSON `url`, provider URL, form action
 * and the IdP's redirect_uri stay on it, and a callbackUrl naming any other origin (the Host when
 * X-Forwarded-Host names another, a near miss, a list) becomes that origin. A request naming no
 * valid origin (a malformed host, a list, another scheme) gets 400 and no URL at all. Answering on
 * the claimed host is not an open redirect: the proxy, not the client, sets those headers (see
 * docs/options.md); sending a user to any host other than the claimed one would be.
 */

/** Hosts: valid names, addresses and ports of every form, the near misses isHost() must refuse, and text. */
const hostValue: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 14,
    arbitrary: fc
      .tuple(
        fc.oneof(
          fc.constantFrom('localhost', 'app.example', 'Example.COM', 'xn--bcher-kva.example', '127.0.0.1', '[::1]'),
          fc.domain(),
          fc.ipV4(),
          fc.ipV6().map((ip) => `[${ip}]`),
        ),
        fc.option(fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.constantFrom(0, 65536, 80, 443)), { nil: null }),
      )
      .map(([host, port]) => (port === null ? host : `${host}:${port}`)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...['999.999.999.999', 'a.b:70000', '[1:2:3]', 'a.b:+80', 'a..b', '-a.example', 'a_b.example', '1.2.3'],
      ...['0x7f', 'exa mple.com', '[::1', 'a.b:80:80', `${'a'.repeat(64)}.example`, 'a.b:', '', ' ', 'évil.example'],
      ...['evil.example, app.example', 'app.example/path', 'user@app.example', 'app.example#x', 'app.example?x'],
      ...['app.example\\evil.example', '[::1]x', '1.2.3.4.5', '0', 'localhost.', '.localhost', '%6cocalhost'],
    ),
  },
  { weight: 1, arbitrary: headerText },
)

/**
 * Host, X-Forwarded-Host and X-Forwarded-Proto as a proxy might send them, each maybe twice (Node
 * keeps the first Host and joins repeated X-Forwarded-* into a list, which the service refuses).
 */
const hostHeaders: fc.Arbitrary<Array<[string, string]>> = fc
  .record({
    host: fc.oneof(
      { weight: 6, arbitrary: fc.tuple(hostValue) },
      { weight: 1, arbitrary: fc.tuple(hostValue, hostValue) },
    ),
    forwardedHost: fc.oneof(
      { weight: 4, arbitrary: fc.constant<string[]>([]) },
      { weight: 3, arbitrary: fc.tuple(hostValue) },
      { weight: 1, arbitrary: fc.tuple(hostValue, hostValue) },
    ),
    forwardedProto: fc.oneof(
      { weight: 4, arbitrary: fc.constant<string[]>([]) },
      { weight: 3, arbitrary: fc.tuple(fc.constantFrom('http', 'https')) },
      {
        weight: 1,
        arbitrary: fc.array(fc.oneof(fc.constantFrom('HTTPS', 'ftp', '', 'https, http'), headerText), {
          minLength: 1,
          maxLength: 2,
        }),
      },
    ),
  })
  .map(({ host, forwardedHost, forwardedProto }) => [
    ...[...host].map((value): [string, string] => ['Host', value]),
    ...[...forwardedHost].map((value): [string, string] => ['X-Forwarded-Host', value]),
    ...[...forwardedProto].map((value: string): [string, string] => ['X-Forwarded-Proto', value]),
  ])

/**
 * The origin the headers name, worked out here as the docs say, independently of lib/: the one
 * X-Forwarded-Host (else the first Host) and X-Forwarded-Proto (else http), as Node hands them
 * over (bytes as Latin-1, surrounding spaces trimmed, repeats joined into a list). Null when that
 * is no origin: a list, another scheme, a port outside 1–65535, anything more or less than a host
 * and port.
 */
export function claimedSite(headers: ReadonlyArray<readonly [string, string]>): string | null {
  const values = (name: string) =>
    headers
      .filter(([key]) => key.toLowerCase() === name)
      .map(([, value]) => Buffer.from(value, 'utf8').toString('latin1').trim())
  const forwarded = values('x-forwarded-host').join(', ').trim()
  const host = forwarded || values('host')[0] || ''
  const proto = values('x-forwarded-proto').join(', ').trim() || 'http'
  if (host.includes(',') || (proto !== 'http' && proto !== 'https')) return null
  try {
    const url = new URL(`${proto}://${host}`)
    const bare = url.username === '' && url.password === '' && url.href === `${url.origin}/`
    // docs/errors.md (InvalidHost): a complete host, with an optional port from 1 to 65535.
    const port = /:(\d*)$/.exec(host.replace(/^\[[^\]]*\]/, ''))?.[1]
    const portOk = port === undefined || (port !== '' && Number(port) >= 1 && Number(port) <= 65535)
    return bare && portOk && url.host !== '' ? url.origin : null
  } catch {
    return null
  }
}

export function fuzzTrustHost(use: () => Fuzzing, share = 1): void {
  it(
    'keeps every URL it sends on the origin the request names, and answers 400 when it names none',
    async () => {
      const { svc, material, quiet } = use()
      // callbackUrls and their near misses are made for the claimed origin, or for the one the
      // Host alone would name: with an X-Forwarded-Host, those must be refused like any other.
      const cases = hostHeaders.chain((hosts) => {
        const hostOnly = claimedSite(hosts.filter(([name]) => name !== 'X-Forwarded-Host'))
        const origins = [claimedSite(hosts), hostOnly].filter((origin): origin is string => origin !== null)
        return fc.constantFrom(...origins, 'http://localhost').chain((origin) => anyRequest(origin, fc.constant(hosts)))
      })
      await fc.assert(
        fc.asyncProperty(cases, async (spec) => {
          // From all of the request's headers: the others may add a forwarded header of their own.
          const expected = { site: claimedSite(spec.headers), authorizationEndpoints: svc.authorizationEndpoints }
          const answer = await runCase(svc, spec, await material.for(spec), expected, quiet)
          // A request that names no origin reaches no route: a 400 (or Node's own 4xx), never a page with URLs.
          if (expected.site === null && answer.status < 400 && spec.target.startsWith('/api/auth/'))
            throw new Error(`a request naming no valid origin was served: ${answer.status}`)
        }),
        params(share),
      )
    },
    timeoutFor(share),
  )
}
