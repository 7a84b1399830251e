import type { ClientRequest, IncomingMessage } from 'node:http'
import { wrapExecuteRequest, type ExecuteCallback, type ExecuteRequest, type HttpLibrary } from './passport/internals'
import { TIMED_OUT, UNOBSERVED, type ProviderProbe } from './observed'

// A deadline and a size cap on the token and userinfo requests of a passport-oauth2 strategy.
// passport-oauth2 sends them through node-oauth's one request method (./passport/internals.ts),
// which waits for ever and keeps every byte: a provider that accepts the connection and never
// answers would hold the sign-in (and a socket) open indefinitely. Every strategy built on
// passport-oauth2 (ours and the ecosystem's, for their userProfile calls too) goes through that
// one method of its node-oauth client.

const MAX_ANSWER_BYTES = 1024 * 1024

/**
 * Marks the error of a request that was sent whole and got no complete answer (none in time, or
 * the connection broke before one; or headers came and the body was cut, stalled or reset): unlike
 * one never sent, the provider may have acted on it (a refresh token spent). lib/features/provider-tokens/ waits much
 * longer before asking again then.
 */
export const SENT_UNANSWERED = Symbol('sent, no answer')

/** Whether `error` is that of a request sent whole that got no answer. */
export const sentUnanswered = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { [SENT_UNANSWERED]?: true })[SENT_UNANSWERED] === true

/** `probe`: where each request is traced and measured (./observed.ts). */
export function limitOAuthRequests(strategy: object, timeoutMs: number, probe: ProviderProbe = UNOBSERVED): void {
  wrapExecuteRequest(strategy, (execute) => observed(withDeadline(execute, timeoutMs), probe))
}

/**
 * `execute` in the probe's span: the token endpoint (`refresh` for a refresh token's grant) or, for
 * a request without a body, the userinfo endpoint. The caller's callback is called as before; the
 * probe's promise only follows it.
 */
function observed(execute: ExecuteRequest, probe: ProviderProbe): ExecuteRequest {
  return (library, options, body, callback) => {
    const grant = typeof body === 'string' ? new URLSearchParams(body).get('grant_type') : null
    const endpoint = grant === 'refresh_token' ? 'refresh' : grant === null ? 'userinfo' : 'token'
    probe(
      endpoint,
      () =>
        new Promise<void>((resolve, reject) => {
          execute(library, options, body, (error, result, response) => {
            if (error) reject(error instanceof Error ? error : new Error('the provider refused'))
            else resolve()
            callback(error, result, response)
          })
        }),
    ).catch(() => undefined)
  }
}

/** `execute`, given up on after `timeoutMs` or an answer over MAX_ANSWER_BYTES. */
function withDeadline(execute: ExecuteRequest, timeoutMs: number): ExecuteRequest {
  return (library, options, body, callback) => {
    let request: ClientRequest | undefined
    let settled = false
    let sent = false
    let answered = false
    const finish: ExecuteCallback = (error, result, response) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error && sent && !answered && typeof error === 'object')
        Object.defineProperty(error, SENT_UNANSWERED, { value: true })
      callback(error, result, response)
    }
    const abandon = (reason: string, timeout = false) => {
      const error = new Error(`${options.host ?? 'the provider'}: ${reason}`)
      if (timeout) Object.defineProperty(error, TIMED_OUT, { value: true })
      finish(error)
      request?.destroy()
    }
    const timer = setTimeout(() => abandon(`no complete answer within ${timeoutMs} ms`, true), timeoutMs)
    const watched: HttpLibrary = {
      request(requestOptions) {
        request = library.request(requestOptions)
        request.once('finish', () => (sent = true))
        request.on('response', (response: IncomingMessage) => {
          // Answered once the whole body is in: headers then a stalled or cut body are no answer.
          response.once('end', () => (answered = true))
          // node-oauth listens for no error on the answer; a reset mid-answer must not go unheard.
          response.on('error', () => abandon('the answer broke off'))
          let size = 0
          response.on('data', (chunk: Buffer) => {
            size += chunk.length
            if (size <= MAX_ANSWER_BYTES) return
            // An answer, if one refused for its size: a failure for now, not "sent, no answer".
            answered = true
            abandon(`answered more than ${MAX_ANSWER_BYTES} bytes`)
          })
        })
        return request
      },
    }
    try {
      execute(watched, options, body, finish)
    } catch (error) {
      finish(error)
    }
  }
}
