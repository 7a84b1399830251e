import type { Request } from 'express'
import type { AuditRecord, AuditSink } from '../infra/config/audit'
import type { SessionRecord } from '../infra/config/types'
import type { Log } from '../infra/logger'
import { deviceOf } from './session/device-info'
import type { Telemetry } from '../infra/telemetry'

/**
 * The audit stream (`audit` on auth(), docs/telemetry.md): one record per security event, handed to
 * the app's sink without the request waiting for it. The sink is the app's code and may be slow,
 * throw or never answer: each call is started after the current request's work (setImmediate), at
 * most MAX_PENDING unanswered at once (beyond that a record is dropped and counted), and a failure
 * is logged once (`audit.failed`) until a call succeeds again. Without a sink nothing is built.
 */

/** The package's version, as package.json says (spec/audit/audit-shape.spec.ts holds them equal). */
export const PACKAGE_VERSION = '0.1.0'

/** Unanswered sink calls at once: a sink that hangs holds at most this many records in memory. */
export const MAX_PENDING = 1000

/** The package's stable name of each event (`metadata.event_code`), and OCSF's class and activity of it. */
const EVENTS = {
  signin: [3002, 1, 'Logon'],
  signout: [3002, 2, 'Logoff'],
  'signout.everywhere': [3002, 2, 'Logoff'],
  'signout.others': [3002, 2, 'Logoff'],
  'session.revoked': [3002, 2, 'Logoff'],
  'logout.backchannel': [3002, 2, 'Logoff'],
  'tokens.refresh_refused': [3002, 99, 'Token Refresh'],
  'user.created': [3001, 1, 'Create'],
  'password.changed': [3001, 3, 'Password Change'],
  'password.reset': [3001, 4, 'Password Reset'],
  'user.deleted': [3001, 6, 'Delete'],
  'factor.added': [3001, 10, 'MFA Factor Enable'],
  'factor.removed': [3001, 11, 'MFA Factor Disable'],
  'passkey.added': [3001, 99, 'Passkey Add'],
  'passkey.removed': [3001, 99, 'Passkey Remove'],
  'account.linked': [3001, 99, 'Account Link'],
  'account.unlinked': [3001, 99, 'Account Unlink'],
} as const satisfies Record<string, readonly [3001 | 3002, number, string]>

export type AuditEvent = keyof typeof EVENTS

/** What the code that saw an event knows of it; the audit service adds the time, the client and the shape. */
export interface AuditFacts {
  readonly event: AuditEvent
  /** The user it is about; null when a refused sign-in names nobody. */
  readonly userId: string | null
  readonly provider?: string | null
  /** The session's `listSessions` handle; on a request, unset means the session its cookie names. */
  readonly handle?: string | null
  /** A refusal's error code: the record is a Failure. */
  readonly failure?: string
}

export interface Audit {
  /** Whether a sink is set: without one, callers skip any work of their own (a handle's MAC). */
  readonly on: boolean
  /**
   * Records one event; `req`: the request it comes from (its address and user agent). Never throws.
   * Without a sink the event is only counted in the metrics (`countEvent`, below).
   */
  record(facts: AuditFacts, req?: Request): void
  /** The `listSessions` handle of the session a session token names (`record`: what it opened to). */
  handleOf(token: string, record: SessionRecord | null): string | null
  /** The handle of a database session from the store's id of it, as listSessions names it. */
  handleOfSid(sid: string, record: SessionRecord): string
}

export interface AuditDeps {
  readonly sink: AuditSink | null
  readonly log: Log
  readonly handleOf: Audit['handleOf']
  readonly handleOfSid: Audit['handleOfSid']
  /** Traces and metrics (lib/infra/telemetry): every event is counted there, with or without a sink. */
  readonly telemetry: Telemetry
  /** The configured providers' ids: the only provider values a metric carries. */
  readonly providerIds: ReadonlySet<string>
}

export function createAudit({ sink, log, handleOf, handleOfSid, telemetry, providerIds }: AuditDeps): Audit {
  const count = (facts: AuditFacts) => countEvent(telemetry, providerIds, facts)
  if (sink === null) return Object.freeze({ on: false, record: count, handleOf, handleOfSid })
  const send = sender(sink, log)
  return Object.freeze({
    on: true,
    record(facts: AuditFacts, req?: Request) {
      count(facts)
      send(auditRecord(facts, req))
    },
    handleOf,
    handleOfSid,
  })
}

/** The record of an event, as docs/telemetry.md shows it. */
export function auditRecord(facts: AuditFacts, req?: Request): AuditRecord {
  const [classUid, activityId, activityName] = EVENTS[facts.event]
  const device = req === undefined ? null : deviceOf(req, {})
  const failed = facts.failure !== undefined
  return {
    time: Date.now(),
    category_uid: 3,
    category_name: 'Identity & Access Management',
    class_uid: classUid,
    class_name: classUid === 3002 ? 'Authentication' : 'Account Change',
    activity_id: activityId,
    activity_name: activityName,
    type_uid: classUid * 100 + activityId,
    severity_id: 1,
    severity: 'Informational',
    status_id: failed ? 2 : 1,
    status: failed ? 'Failure' : 'Success',
    status_detail: facts.failure ?? null,
    user: { uid: facts.userId },
    session: { uid: facts.handle ?? null },
    src_endpoint: { ip: addressOf(device?.address ?? null) },
    http_request: { user_agent: device?.userAgent ?? null },
    unmapped: { provider: facts.provider ?? null },
    metadata: {
      version: '1.1.0',
      event_code: facts.event,
      product: { name: 'express-auth-service', version: PACKAGE_VERSION },
    },
  }
}

/**
 * Hands records to the sink: never awaited, never throwing, at most MAX_PENDING unanswered. The
 * log says that the sink failed or fell behind, never what a record held.
 */
function sender(sink: AuditSink, log: Log): (record: AuditRecord) => void {
  let pending = 0
  let failing = false
  let dropped = 0
  const succeeded = () => {
    if (!failing) return
    failing = false
    log('info', 'audit.recovered', 'the audit sink answers again')
  }
  const failed = (error: unknown) => {
    if (failing) return
    failing = true
    log('error', 'audit.failed', `the audit sink failed (${kindOf(error)}): records are lost until it answers again`)
  }
  const settled = () => {
    pending -= 1
    if (pending > 0 || dropped === 0) return
    log('warn', 'audit.dropped', `${dropped} audit record(s) were dropped while the sink was behind`)
    dropped = 0
  }
  // A throw and a rejection alike end in `failed`; nothing here can reject unhandled.
  const call = (record: AuditRecord) =>
    void Promise.resolve()
      .then(() => sink(record))
      .then(succeeded, failed)
      .finally(settled)
      .catch(() => undefined)
  return (record) => {
    if (pending >= MAX_PENDING) {
      dropped += 1
      return
    }
    pending += 1
    setImmediate(call, record)
  }
}

/** What failed, without its message (which may quote a record): the error's class, or the value's type. */
function kindOf(error: unknown): string {
  if (error instanceof Error) return error.name.slice(0, 64)
  return typeof error
}

/** A valid address for OCSF's `ip`: an IPv6 client's /64 (`2001:db8:1:2::/64`) as its first address. */
function addressOf(address: string | null): string | null {
  return address !== null && address.endsWith('/64') ? address.slice(0, -3) : address
}

/** The events that end sessions before their time: `auth.revocations`, by kind. */
const REVOCATIONS: ReadonlySet<AuditEvent> = new Set<AuditEvent>([
  'signout.everywhere',
  'signout.others',
  'session.revoked',
  'logout.backchannel',
  'user.deleted',
])

/**
 * The metrics a security event makes (docs/telemetry.md, "Metrics"): a sign-in that ended
 * (`auth.signin.attempts`, by provider and outcome) and a revocation (`auth.revocations`, by kind;
 * refreshes are counted where they happen, lib/features/provider-tokens/exchange.ts). A provider
 * is named only when the configuration has it (a request's path could name anything).
 */
export function countEvent(telemetry: Telemetry, providerIds: ReadonlySet<string>, facts: AuditFacts): void {
  const provider = facts.provider && providerIds.has(facts.provider) ? facts.provider : 'unknown'
  if (facts.event === 'signin') {
    const outcome = facts.failure === undefined ? 'success' : 'failure'
    telemetry.add('auth.signin.attempts', { 'auth.provider': provider, 'auth.outcome': outcome })
  } else if (REVOCATIONS.has(facts.event)) {
    telemetry.add('auth.revocations', { 'auth.revocation.kind': facts.event })
  }
}
