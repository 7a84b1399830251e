/** A non-null object that is not an array: what JSON calls an object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** An object literal (or one without a prototype): not a class instance, an array, a Date, a Promise… */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/** The kind of a value, for a message that must not show the value itself. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : `the number ${value}`
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'function') return 'a function'
  return typeof value
}
