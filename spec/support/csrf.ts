import request from 'supertest'
import type { App } from 'supertest/types'
import { cookieHeader, expectCookie } from './cookies'

/**
 * A CSRF token and the cookie that goes with it, as a browser gets them from GET /csrf: `cookie` is
 * the Cookie request header that sends it, `value` the cookie's value.
 */
export async function csrfPair(app: App, path = '/api/auth/csrf') {
  const res = await request(app).get(path)
  const { name, value } = expectCookie(res, 'auth.csrf-token')
  return { token: res.body.csrfToken as string, cookie: cookieHeader({ [name]: value }), value }
}
