import { createHash } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A local server that speaks the breached-password range API (Have I Been Pwned's k-anonymity
 * protocol): `GET <path><5 hex digits>` answers every known suffix under that prefix as
 * `SUFFIX:COUNT` lines, padded with random suffixes of count 0 when asked (`Add-Padding: true`).
 * It stands in for api.pwnedpasswords.com in the specs, which never call the internet. `mode`:
 * `up`; `down` (503); `slow` (headers after `delayMs`); `dribble` (headers at once, the body never
 * ends); `garbage` (200 with a body that is no range).
 */
export interface RangeServer {
  /** The `breached.url` to configure: `http://127.0.0.1:<port>/range/`. */
  url: string
  /** Every request's path and headers, in order. */
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>
  mode: 'up' | 'down' | 'slow' | 'dribble' | 'garbage'
  delayMs: number
  close(): Promise<void>
}

export async function startRangeServer(
  breached: readonly string[],
  mode: RangeServer['mode'] = 'up',
): Promise<RangeServer> {
  const known = new Map<string, number>()
  for (const password of breached) known.set(createHash('sha1').update(password).digest('hex').toUpperCase(), 42)
  const requests: RangeServer['requests'] = []
  const server: Server = createServer((req, res) => {
    const path = req.url ?? ''
    requests.push({ path, headers: req.headers })
    const answer = (): void => {
      if (range.mode === 'down') {
        res.writeHead(503).end('unavailable')
        return
      }
      if (range.mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('<html>hello</html>')
        return
      }
      const prefix = path.slice(path.lastIndexOf('/') + 1).toUpperCase()
      if (!/^[0-9A-F]{5}$/.test(prefix)) {
        res.writeHead(400).end('The hash prefix was not in a valid format')
        return
      }
      const lines = [...known]
        .filter(([hash]) => hash.startsWith(prefix))
        .map(([hash, count]) => `${hash.slice(5)}:${count}`)
      if (req.headers['add-padding'] === 'true')
        for (let i = 0; i < 800; i++)
          lines.push(`${createHash('sha1').update(`pad${i}${prefix}`).digest('hex').toUpperCase().slice(5)}:0`)
      res.writeHead(200, { 'content-type': 'text/plain' })
      // Headers at once, and a body that never ends: the deadline must cover the body too.
      if (range.mode === 'dribble') res.write(lines.slice(0, 3).join('\r\n'))
      else res.end(lines.join('\r\n'))
    }
    if (range.mode === 'slow') setTimeout(answer, range.delayMs).unref()
    else answer()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const range: RangeServer = {
    url: `http://127.0.0.1:${port}/range/`,
    requests,
    mode,
    delayMs: 5000,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return range
}
