import type { Request } from 'express'
import { AuthError } from '../errors'
import { isRecord } from '../util/object'

/**
 * Reads a POST body as a flat record: application/x-www-form-urlencoded or application/json, or
 * whatever the host app's own body parser already produced. Over the limit: 413. Malformed JSON:
 * 400. Another content type carrying a body: 415. Not all there within `timeoutMs`: 408 (a slow
 * sender holds no reader for longer). Nothing here throws anything but an AuthError.
 */
export async function readBody(req: Request, limit: number, timeoutMs: number): Promise<Record<string, unknown>> {
  if ((req as { _body?: boolean })._body === true || req.readableEnded) return asRecord(req.body)
  const length = Number(req.headers['content-length'] ?? 0)
  if (!(length > 0) && req.headers['transfer-encoding'] === undefined) return {}
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase()
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
    throw new AuthError(
      'UnsupportedMediaType',
      'POST bodies must be application/x-www-form-urlencoded or application/json',
    )
  }
  if (length > limit) throw new AuthError('PayloadTooLarge', `the body is larger than ${limit} bytes`)
  const text = await readText(req, limit, timeoutMs)
  if (type === 'application/x-www-form-urlencoded') return fromForm(text)
  try {
    return asRecord(text === '' ? {} : JSON.parse(text))
  } catch {
    throw new AuthError('InvalidBody', 'the JSON body could not be parsed')
  }
}

function readText(req: Request, limit: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const timer = setTimeout(
      () => fail(new AuthError('RequestTimeout', `the body did not arrive within ${timeoutMs} ms`)),
      timeoutMs,
    )
    const settle = () => {
      clearTimeout(timer)
      req.removeListener('data', onData)
    }
    const fail = (error: AuthError) => {
      settle()
      req.resume()
      reject(error)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) fail(new AuthError('PayloadTooLarge', `the body is larger than ${limit} bytes`))
      else chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => {
      settle()
      resolve(Buffer.concat(chunks).toString('utf8'))
    })
    req.once('error', () => fail(new AuthError('InvalidBody', 'the body could not be read')))
    req.once('aborted', () => fail(new AuthError('InvalidBody', 'the request was aborted')))
  })
}

/** Form fields; a repeated field keeps its first value. Field names never reach a prototype. */
function fromForm(text: string): Record<string, unknown> {
  const record: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [key, value] of new URLSearchParams(text)) if (!Object.hasOwn(record, key)) record[key] = value
  return record
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {}
}
