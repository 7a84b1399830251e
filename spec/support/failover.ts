import request from 'supertest'
import { csrfPair } from './csrf'
import type { App } from './tracking'

/**
 * For the failover specs (Sentinel, Cluster): what `GET /session` answered for a session, in one
 * word: the right user (`served`), no session (`refused`), `503`, or anything else as its status
 * and body (always a failure there).
 */
export type Answer = string

export async function answerFor(app: App, cookie: string, name: string): Promise<Answer> {
  const res = await request(app).get('/api/auth/session').set('Cookie', cookie)
  if (res.status === 503) return '503'
  const body = res.body as { user?: { name?: string } }
  if (res.status === 200 && body.user?.name === name) return 'served'
  if (res.status === 200 && body.user === undefined) return 'refused'
  return `${res.status} ${res.text}`
}

/** POST /signout with the session cookie and a CSRF pair, as the sign-out page does. */
export async function signOut(app: App, cookie: string): Promise<void> {
  const { token, cookie: csrf } = await csrfPair(app)
  await request(app)
    .post('/api/auth/signout')
    .set('Cookie', `${cookie}; ${csrf}`)
    .type('form')
    .send({ csrfToken: token })
    .expect(302)
}

/** How many times each answer was seen. */
export class Tally {
  readonly counts = new Map<Answer, number>()
  add(answer: Answer): void {
    this.counts.set(answer, (this.counts.get(answer) ?? 0) + 1)
  }
  /** The answers seen that are not among `allowed`. */
  besides(...allowed: Answer[]): Answer[] {
    return [...this.counts.keys()].filter((answer) => !allowed.includes(answer))
  }
  toString(): string {
    return JSON.stringify(Object.fromEntries(this.counts))
  }
}
