import type { Request } from 'express'
import { clientKey } from '../../infra/http/client-key'
import { isRecord } from '../../infra/util/object'

/** Where a session signed in from, as first seen: kept beside a database session for `listSessions`. */
export interface DeviceInfo {
  /** The browser's `User-Agent`, at most MAX_USER_AGENT characters, without control characters. */
  readonly userAgent: string | null
  /** The client address as the rate limits count it (lib/infra/http/client-key.ts): IPv6 by its /64. */
  readonly address: string | null
  /** The id of the provider the user signed in with, when the record names it. */
  readonly provider: string | null
}

/** A `User-Agent` is the client's to choose: what is kept of it is bounded. */
export const MAX_USER_AGENT = 256

/** C0, DEL and C1 controls: nothing a page or a log should print. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g

export function userAgentOf(value: unknown): string | null {
  if (typeof value !== 'string') return null
  const clean = value.replace(CONTROLS, '').trim().slice(0, MAX_USER_AGENT)
  return clean === '' ? null : clean
}

/** The device of the request that signs in; `provider` from the new record when it names one. */
export function deviceOf(req: Request, record: object): DeviceInfo {
  const provider = (record as { provider?: unknown }).provider
  const address = req.ip === undefined ? 'unknown' : clientKey(req.ip)
  return {
    userAgent: userAgentOf(req.headers['user-agent']),
    address: address === 'unknown' || address === 'invalid' ? null : address,
    provider: typeof provider === 'string' && provider !== '' ? provider.slice(0, 128) : null,
  }
}

/** A stored device entry read back: whatever is not what we write is null. */
export function storedDevice(value: unknown): DeviceInfo | null {
  if (!isRecord(value)) return null
  const text = (field: unknown, max: number) => (typeof field === 'string' && field !== '' ? field.slice(0, max) : null)
  return {
    userAgent: userAgentOf(value.userAgent),
    address: text(value.address, 64),
    provider: text(value.provider, 128),
  }
}
