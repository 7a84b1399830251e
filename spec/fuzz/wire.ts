import { connect } from 'node:net'

/**
 * Requests as bytes, answers as read off the socket. supertest and fetch would normalise what the
 * fuzz generates (dot segments resolved, `%2F` re-encoded, header values checked, Content-Length
 * fixed), so nothing malformed would reach the server; this writes exactly what the case says.
 * Each request is its own connection (`Connection: close`), so one answer can never bleed into the
 * next case's.
 */
export interface RawRequest {
  method: string
  /** The request-target as written on the request line: not checked, not encoded. */
  target: string
  /** In order; repeated names are sent repeatedly. A Connection header is always added (close). */
  headers: ReadonlyArray<readonly [string, string]>
  body?: Buffer
  /** Sent instead of the body's real length (a body that stops short, or runs on). */
  contentLength?: number
  /** The client's address (default: the next of `nextClient`). */
  from?: string
}

export interface Answer {
  status: number
  /** Names lower-cased, in order, repeats kept (Set-Cookie). */
  headers: Array<[string, string]>
  body: string
}

/** The first value of a header, if any. */
export function headerOf(answer: Answer, name: string): string | undefined {
  return answer.headers.find(([key]) => key === name)?.[1]
}

export function headersOf(answer: Answer, name: string): string[] {
  return answer.headers.filter(([key]) => key === name).map(([, value]) => value)
}

let clients = 0

/**
 * A client address of its own for every request, 127.x.y.z: the whole of 127/8 is loopback. The
 * per-IP limits (sign-in and callback requests, e-mail links) would otherwise answer 429 after a
 * few dozen cases, and, worse, while fast-check shrinks a counterexample by replaying it. They are
 * the rate limiter's own specs' concern; here 429 is merely an allowed answer.
 */
export function nextClient(): string {
  clients++
  return `127.${1 + (Math.floor(clients / 65536) % 254)}.${(clients >> 8) & 255}.${clients & 255}`
}

/** A hung request is a finding, not a slow test: the service answers everything within this. */
const ANSWER_WITHIN_MS = 8000

export function send(port: number, request: RawRequest): Promise<Answer> {
  const head = [`${request.method} ${request.target} HTTP/1.1`]
  for (const [name, value] of request.headers) head.push(`${name}: ${value}`)
  const length = request.contentLength ?? request.body?.length
  if (length !== undefined && !request.headers.some(([name]) => /^(?:content-length|transfer-encoding)$/i.test(name)))
    head.push(`Content-Length: ${length}`)
  head.push('Connection: close', '', '')
  const bytes = Buffer.concat([Buffer.from(head.join('\r\n'), 'utf8'), request.body ?? Buffer.alloc(0)])
  return new Promise<Answer>((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect({ port, host: '127.0.0.1', localAddress: request.from ?? nextClient() }, () => {
      socket.write(bytes)
    })
    // A body that stops short: the service answers 408 after its bodyTimeout (200 ms here); a path
    // of the host app's waits for the rest for ever, so the client gives up and half-closes, as a
    // browser whose user left would (Node then answers 400 to the incomplete request).
    const short = (request.contentLength ?? 0) > (request.body?.length ?? 0)
    const giveUp = short ? setTimeout(() => socket.end(), 1000) : undefined
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms to ${request.method} ${request.target.slice(0, 200)}`))
    }, ANSWER_WITHIN_MS)
    const done = () => {
      clearTimeout(timer)
      clearTimeout(giveUp)
      const raw = Buffer.concat(chunks)
      const answer = parseAnswer(raw)
      if (answer) resolve(answer)
      else reject(new Error(`an answer that is not HTTP: ${JSON.stringify(raw.toString('latin1').slice(0, 300))}`))
    }
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', done)
    // The server may answer (413, 400) and close before the whole request is written: a reset
    // after its answer is an ordinary end; 'close' follows and reads what arrived.
    socket.on('error', () => undefined)
  })
}

/** The first final (non-1xx) answer in the bytes, its chunked body decoded; null when there is none. */
export function parseAnswer(raw: Buffer): Answer | null {
  let rest = raw
  for (;;) {
    const end = rest.indexOf('\r\n\r\n')
    if (end === -1) return null
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n')
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')
    if (!status) return null
    const headers = lines.slice(1).map((line): [string, string] => {
      const colon = line.indexOf(':')
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
    })
    let body = rest.subarray(end + 4)
    const code = Number(status[1])
    if (code >= 100 && code < 200) {
      rest = body
      continue
    }
    if (headers.some(([name, value]) => name === 'transfer-encoding' && /chunked/i.test(value))) body = dechunk(body)
    return { status: code, headers, body: body.toString('utf8') }
  }
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  while (at < body.length) {
    const lineEnd = body.indexOf('\r\n', at)
    if (lineEnd === -1) break
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16)
    if (!(size > 0)) break
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts)
}
