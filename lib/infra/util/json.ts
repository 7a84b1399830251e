import { isRecord } from './object'

/** A JSON object from untrusted text, or null for anything else (bad JSON, arrays, primitives). */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : null
  } catch {
    return null
  }
}
