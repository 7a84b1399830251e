import type { Request } from 'express'
import { AuthError } from '../errors'

/**
 * Reads a POST body as a flat record: application/x-www-form-urlencoded or application/json, or
 * whatever the host app's own body parser already produced. Over the limit: 413. Malformed JSON:
 * 400. Another content type carrying a body: 415. Nothing here throws anything but an AuthError.
 */
export async function readBody(req: Request, limit: number): Promise<Record<string, unknown>> {
  if ((req as { _body?: boolean })._body === true || req.readableEnded) return asRecord(req.body)
  const length = Number(req.headers['content-length'] ?? 0)
  if (!(length > 0) && req.headers['transfer-encoding'] === undefined) return {}
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase()
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
    throw new AuthError('UnsupportedMediaType', 'POST bodies must be application/x-www-form-urlencoded or application/json')
  }
  if (length > limit) throw new AuthError('PayloadTooLarge', `the body is larger than ${limit} bytes`)
  const text = await readText(req, limit)
  if (type === 'application/x-www-form-urlencoded') return fromForm(text)
  try {
    return asRecord(text === '' ? {} : JSON.parse(text))
  } catch {
    throw new AuthError('InvalidBody', 'the JSON body could not be parsed')
  }
}

function readText(req: Request, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const fail = (error: AuthError) => {
      req.removeListener('data', onData)
      req.resume()
      reject(error)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) fail(new AuthError('PayloadTooLarge', `the body is larger than ${limit} bytes`))
      else chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.once('error', () => fail(new AuthError('InvalidBody', 'the body could not be read')))
    req.once('aborted', () => fail(new AuthError('InvalidBody', 'the request was aborted')))
  })
}

/** Form fields; a repeated field keeps its first value. */
function fromForm(text: string): Record<string, unknown> {
  const record: Record<string, unknown> = {}
  for (const [key, value] of new URLSearchParams(text)) if (!(key in record)) record[key] = value
  return record
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}
