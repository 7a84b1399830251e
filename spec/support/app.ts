import express from 'express'
import { auth, type AuthOptions, type LogEntry } from '../../lib'

export const SECRET = 'a-test-secret-that-is-long-enough-1234567890'
export const BASE = 'http://localhost:3000/api/auth'

/** Options for a test service: a fixed secret and URL, and a logger that keeps every entry. */
export function testOptions(overrides: AuthOptions = {}): AuthOptions & { logs: LogEntry[] } {
  const logs: LogEntry[] = []
  return { url: BASE, secret: SECRET, logger: (entry) => logs.push(entry), ...overrides, logs }
}

/** An Express app with the service mounted (at `/api/auth` unless `mount` says otherwise). */
export function makeApp(overrides: AuthOptions = {}, mount: string | null = '/api/auth') {
  const { logs, ...options } = testOptions(overrides)
  const router = auth(options)
  const app = express()
  if (mount === null) app.use(router)
  else app.use(mount, router)
  app.get('/', (_req, res) => { res.send('home') })
  return { app, router, logs }
}
