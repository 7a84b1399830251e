import request from 'supertest'
import type { App } from 'supertest/types'
import { expectCookie } from './cookies'

/** A CSRF token and the Cookie pair that goes with it, as a browser gets them from GET /csrf. */
export async function csrfPair(app: App, path = '/api/auth/csrf') {
  const res = await request(app).get(path)
  const cookie = expectCookie(res, 'auth.csrf-token')
  return { token: res.body.csrfToken as string, cookie: `${cookie.name}=${cookie.value}` }
}
