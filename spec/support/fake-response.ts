import type { Response } from 'express'

/** What a fake response was given. `headers` has lower-case names, and Set-Cookie is always a list of lines. */
export interface Sent {
  /** The status code at `end()`; 0 while the response is not ended. */
  status: number
  headers: Record<string, unknown>
  body: string
}

/**
 * Node's response API as far as the package's writers use it (statusCode, setHeader, getHeader,
 * end, and `req.headers`), recording what was written: for unit specs of code that writes to a
 * response without a server. `sent` reads like a supertest response, so ./cookies applies to it.
 */
export function fakeResponse(requestHeaders: Record<string, string> = {}): { res: Response; sent: Sent } {
  const sent: Sent = { status: 0, headers: {}, body: '' }
  const res = {
    statusCode: 200,
    req: { headers: requestHeaders },
    setHeader(name: string, value: unknown) {
      const key = name.toLowerCase()
      sent.headers[key] = key === 'set-cookie' ? ([] as unknown[]).concat(value).map(String) : value
    },
    getHeader(name: string) {
      return sent.headers[name.toLowerCase()]
    },
    end(chunk?: string | Buffer) {
      sent.status = this.statusCode
      sent.body = chunk === undefined ? '' : chunk.toString()
    },
  }
  return { res: res as unknown as Response, sent }
}
