import { ConfigurationError } from '../errors'
import { describe } from '../util/options'

/**
 * The audit stream's record (docs/telemetry.md, "Audit stream"): one per security event, in the
 * shape of OCSF 1.1's Identity & Access Management classes, Authentication (3002: sign-in,
 * sign-out, a session ended, a refresh refused) and Account Change (3001: a password, a factor, a
 * passkey, a linked account, a user deleted). Every field is always present (null when not known),
 * so that a consumer can rely on the shape. It never holds a token, a code, a password, a cookie,
 * a link or a secret; the user is named by id alone (no address, no name).
 */
export interface AuditRecord {
  /** Milliseconds since the epoch: when the event happened. */
  readonly time: number
  /** 3: Identity & Access Management. */
  readonly category_uid: 3
  readonly category_name: 'Identity & Access Management'
  /** 3001 Account Change, 3002 Authentication. */
  readonly class_uid: 3001 | 3002
  readonly class_name: 'Account Change' | 'Authentication'
  /** OCSF's activity of the class (Logon 1, Logoff 2, Password Change 3, …; 99 Other: `activity_name` says which). */
  readonly activity_id: number
  readonly activity_name: string
  /** `class_uid * 100 + activity_id`, as OCSF defines it. */
  readonly type_uid: number
  /** 1 Informational. */
  readonly severity_id: 1
  readonly severity: 'Informational'
  /** 1 Success, 2 Failure (a refused sign-in, a refused refresh). */
  readonly status_id: 1 | 2
  readonly status: 'Success' | 'Failure'
  /** A failure's error code (`AccessDenied`, `CredentialsSignin`, `OAuthCallback`, …, docs/errors.md); else null. */
  readonly status_detail: string | null
  /** The user the event is about (`SessionRecord.userId`); null when a refused sign-in names nobody. */
  readonly user: { readonly uid: string | null }
  /** The session it is about: its `listSessions` handle (database sessions); null for cookie sessions or none. */
  readonly session: { readonly uid: string | null }
  /** The client's address as the rate limits count it: an IPv6 address by its /64 (the rest zero); null without a request. */
  readonly src_endpoint: { readonly ip: string | null }
  /** The client's `User-Agent` (at most 256 characters, no control characters); null without a request. */
  readonly http_request: { readonly user_agent: string | null }
  /** Not OCSF's own attributes: the provider's id (`'github'`, `'email'`), or null when none is concerned. */
  readonly unmapped: { readonly provider: string | null }
  readonly metadata: {
    /** The OCSF schema version the record follows. */
    readonly version: '1.1.0'
    /** The package's stable name of the event (`signin`, `signout.everywhere`, `factor.added`, …). */
    readonly event_code: string
    readonly product: { readonly name: 'express-auth-service'; readonly version: string }
  }
}

/** `audit`: given every record; its answer (or promise) is never awaited by a request. */
export type AuditSink = (record: AuditRecord) => void | Promise<void>

export function resolveAudit(value: unknown): AuditSink | null {
  if (value === undefined) return null
  if (typeof value !== 'function')
    throw new ConfigurationError(
      `\`audit\` must be a function given each audit record, such as \`audit: (record) => siem.send(record)\`; got ${describe(value)}`,
    )
  return value as AuditSink
}
