import express from 'express'
import request from 'supertest'
import { auth, email, type SessionRecord } from '../../lib'

const SECRET = 'a-secret-that-is-at-least-32-characters'

/**
 * The app's signIn callback gets the sign-in's user and account, and may look at them as it likes:
 * what it writes into them changes nothing of the sign-in (the provider the session records, the
 * user id, the features' sign-in hooks chosen for that provider).
 */
it("an app's signIn callback that rewrites account.provider and user.id does not change who signed in, or with what", async () => {
  const links: string[] = []
  const signedIn: SessionRecord[] = []
  const router = auth({
    url: 'http://localhost:3000/api/auth',
    secret: SECRET,
    providers: [
      email({ from: 'a@example.com', confirm: false, sendVerificationRequest: ({ url }) => void links.push(url) }),
    ],
    logger: false,
    callbacks: {
      signIn: ({ account, user }) => {
        account.provider = 'someone-else'
        user.id = 'admin'
        return true
      },
    },
    events: { signIn: ({ record }) => void signedIn.push(record) },
  })
  const agent = request.agent(express().use('/api/auth', router))
  const { body } = await agent.get('/api/auth/csrf')
  await agent.post('/api/auth/signin/email').type('form').send({ csrfToken: body.csrfToken, email: 'u@example.com' })
  const link = new URL(links[0]!)
  expect((await agent.get(link.pathname + link.search)).status).toBe(302)
  expect(signedIn.map(({ userId, provider }) => ({ userId, provider }))).toEqual([
    { userId: 'email:u@example.com', provider: 'email' },
  ])
})
