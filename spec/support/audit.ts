import type { AuditRecord } from '../../lib'

/**
 * An audit sink that keeps what it is given (`audit` on auth()), and the questions a spec asks of
 * it. The service hands records over after the request's own work (setImmediate): `settled()`
 * waits for that.
 */
export interface AuditLog {
  readonly records: AuditRecord[]
  readonly sink: (record: AuditRecord) => void
  /** Waits until the records of the requests made so far have reached the sink. */
  settled(): Promise<void>
  /** The records of one event (`metadata.event_code`), after settling. */
  of(event: string): Promise<AuditRecord[]>
}

export function auditLog(): AuditLog {
  const records: AuditRecord[] = []
  const settled = async () => {
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
  }
  return {
    records,
    sink: (record) => void records.push(record),
    settled,
    async of(event) {
      await settled()
      return records.filter((record) => record.metadata.event_code === event)
    },
  }
}

/** What every record of `event` shows, for `toMatchObject`. */
export function expected(fields: {
  class_uid: 3001 | 3002
  activity_id: number
  activity_name: string
  userId: string | null
  provider?: string | null
  handle?: string | null
  status?: 'Success' | 'Failure'
  detail?: string | null
  ip?: string | null
}): Record<string, unknown> {
  const failed = fields.status === 'Failure'
  return {
    category_uid: 3,
    class_uid: fields.class_uid,
    class_name: fields.class_uid === 3002 ? 'Authentication' : 'Account Change',
    activity_id: fields.activity_id,
    activity_name: fields.activity_name,
    type_uid: fields.class_uid * 100 + fields.activity_id,
    status_id: failed ? 2 : 1,
    status: failed ? 'Failure' : 'Success',
    status_detail: fields.detail ?? null,
    user: { uid: fields.userId },
    ...(fields.handle === undefined ? {} : { session: { uid: fields.handle } }),
    ...(fields.provider === undefined ? {} : { unmapped: { provider: fields.provider } }),
    ...(fields.ip === undefined ? {} : { src_endpoint: { ip: fields.ip } }),
    metadata: { version: '1.1.0', product: { name: 'express-auth-service' } },
  }
}
