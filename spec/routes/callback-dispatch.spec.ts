import request from 'supertest'
import { email, oauth2 } from '../../lib'
import { makeApp } from '../support/app'

// With an e-mail provider and an OAuth provider side by side, each callback goes to its own kind.
describe('GET /callback/:provider with e-mail and OAuth providers', () => {
  const { app } = makeApp({
    providers: [
      email({ from: 'auth@example.com', sendVerificationRequest: () => undefined }),
      oauth2({
        id: 'stub',
        clientId: 'c',
        clientSecret: 's',
        authorizationUrl: 'http://127.0.0.1:9/authorize',
        tokenUrl: 'http://127.0.0.1:9/token',
      }),
    ],
  })

  it('sends an OAuth provider’s callback to the OAuth flow, not to the e-mail link page', async () => {
    const res = await request(app).get('/api/auth/callback/stub?code=abc&state=unknown').expect(302)
    expect(res.headers.location).toBe('http://localhost:3000/api/auth/error?error=OAuthCallback')
  })

  it('answers a callback in JSON mode with the error page’s URL, as every JSON-mode answer does', async () => {
    const res = await request(app)
      .get('/api/auth/callback/stub?code=abc&state=unknown')
      .set('X-Auth-Return-Redirect', '1')
      .expect(200)
    expect(res.body).toEqual({ url: 'http://localhost:3000/api/auth/error?error=OAuthCallback' })
  })

  it('sends the e-mail provider’s callback to the e-mail link page', async () => {
    const res = await request(app).get('/api/auth/callback/email?token=abc&email=ada%40example.com')
    expect(res.status).toBe(200)
    expect(res.text).toContain('<form')
  })
})
