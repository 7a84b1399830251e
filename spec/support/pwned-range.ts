import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A local Pwned Passwords range API (https://haveibeenpwned.com/API/v3#SearchingPwnedPasswordsByRange)
 * on 127.0.0.1: `GET /range/{5 hex}` answers `SUFFIX:COUNT` lines, sorted, for the `breached`
 * passwords under that prefix (a count above 0) among random ones; with `Add-Padding: true`, lines
 * of count 0 fill the answer to 800..1000 lines, as the real API pads it, and the `padded`
 * passwords' suffixes appear only as such lines. Its SHA-1 is its own (node:crypto), not the
 * package's. `mode` says how it answers and can be changed between requests:
 * - `up`: as above;
 * - `down`: 503;
 * - `slow`: the headers and half the lines, then nothing more, ever;
 * - `garbage`: 200 with an HTML page;
 * - `huge`: 200 with over 2 MiB of well-formed padding lines before the true answer's lines;
 * - `redirect`: 302 to `/moved/range/{prefix}`, which answers as `up` does.
 */
export type RangeMode = 'up' | 'down' | 'slow' | 'garbage' | 'huge' | 'redirect'

export interface RangeServer {
  /** `http://127.0.0.1:{port}/range/`, the `breached.url` to configure. */
  readonly url: string
  mode: RangeMode
  /** The line ending of answers: CRLF, as the real API's, or LF. */
  newline: '\r\n' | '\n'
  /** Every request received: method, path and headers. */
  readonly requests: { method: string; path: string; headers: IncomingHttpHeaders }[]
  /** The prefixes asked, in order. */
  readonly prefixes: string[]
  stop(): Promise<void>
}

export interface RangeServerOptions {
  /** Passwords the server knows as breached (a count above 0). */
  readonly breached: readonly string[]
  /** Passwords whose suffix appears, with a count of 0, as padding only (with `Add-Padding: true`). */
  readonly padded?: readonly string[]
  readonly mode?: RangeMode
}

const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('hex').toUpperCase()
const randomSuffix = () => randomBytes(18).toString('hex').slice(0, 35).toUpperCase()
const RANGE_PATH = /^(?:\/moved)?\/range\/([\dA-F]{5})$/

export async function startRangeServer(options: RangeServerOptions): Promise<RangeServer> {
  const breached = options.breached.map(sha1)
  const padded = (options.padded ?? []).map(sha1)
  const answer = (prefix: string, padding: boolean): string[] => {
    const lines = breached.filter((hash) => hash.startsWith(prefix)).map((hash) => `${hash.slice(5)}:${1000}`)
    for (let i = 0; i < 20; i++) lines.push(`${randomSuffix()}:${1 + i}`)
    if (!padding) return lines.sort()
    lines.push(...padded.filter((hash) => hash.startsWith(prefix)).map((hash) => `${hash.slice(5)}:0`))
    const total = 800 + Math.floor(Math.random() * 201)
    while (lines.length < total) lines.push(`${randomSuffix()}:0`)
    return lines.sort()
  }
  const respond = (res: ServerResponse, path: string, lines: string[]) => {
    const body = lines.join(range.newline)
    switch (range.mode) {
      case 'down':
        res.writeHead(503, { 'Content-Type': 'text/plain' })
        return void res.end('Service Unavailable')
      case 'garbage':
        res.writeHead(200, { 'Content-Type': 'text/html' })
        return void res.end('<html><body><h1>Please wait while we check your browser</h1></body></html>')
      case 'slow':
        res.writeHead(200, { 'Content-Type': 'text/plain' })
        return void res.write(lines.slice(0, Math.floor(lines.length / 2)).join(range.newline) + range.newline)
      case 'redirect':
        if (!path.startsWith('/moved/')) {
          res.writeHead(302, { Location: `/moved${path}` })
          return void res.end()
        }
        break
      case 'huge': {
        res.writeHead(200, { 'Content-Type': 'text/plain' })
        const filler = Array.from({ length: 60_000 }, () => `${randomSuffix()}:0`).join(range.newline)
        return void res.end(`${filler}${range.newline}${body}`)
      }
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' })
    res.end(body)
  }
  const server = createServer((req, res) => {
    const path = req.url ?? ''
    range.requests.push({ method: req.method ?? '', path, headers: req.headers })
    const prefix = RANGE_PATH.exec(path)?.[1]
    if (req.method !== 'GET' || prefix === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' })
      return void res.end('The hash prefix was not in a valid format')
    }
    range.prefixes.push(prefix)
    respond(res, path, answer(prefix, req.headers['add-padding'] === 'true'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const range: RangeServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`,
    mode: options.mode ?? 'up',
    newline: '\r\n',
    requests: [],
    prefixes: [],
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return range
}
