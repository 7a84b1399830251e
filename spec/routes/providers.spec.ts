import request from 'supertest'
import { oidc } from '../../lib'
import { makeApp } from '../support/app'

const provider = (id: string, name: string) =>
  oidc({ id, name, issuer: 'https://idp.example.com', clientId: 'app', clientSecret: 'secret' })

describe('GET /providers', () => {
  it('lists each provider with exactly id, name, type and absolute URLs', async () => {
    const { app } = makeApp({ providers: [provider('github', 'GitHub'), provider('okta', 'Okta')] })
    const res = await request(app).get('/api/auth/providers').expect(200).expect('Content-Type', /json/)
    expect(res.body).toEqual({
      github: {
        id: 'github',
        name: 'GitHub',
        type: 'oauth',
        signinUrl: 'http://localhost:3000/api/auth/signin/github',
        callbackUrl: 'http://localhost:3000/api/auth/callback/github',
      },
      okta: {
        id: 'okta',
        name: 'Okta',
        type: 'oauth',
        signinUrl: 'http://localhost:3000/api/auth/signin/okta',
        callbackUrl: 'http://localhost:3000/api/auth/callback/okta',
      },
    })
  })

  it('answers an empty object when no provider is configured', async () => {
    const { app } = makeApp()
    await request(app).get('/api/auth/providers').expect(200, {})
  })

  it('builds URLs from the Host header only with trustHost and no url', async () => {
    const { app } = makeApp({ url: undefined, trustHost: true, providers: [provider('gh', 'GH')] })
    const res = await request(app)
      .get('/api/auth/providers')
      .set('X-Forwarded-Host', 'proxy.example.com')
      .set('X-Forwarded-Proto', 'https')
    expect(res.body.gh.signinUrl).toBe('https://proxy.example.com/api/auth/signin/gh')
    const spoofed = makeApp({ providers: [provider('gh', 'GH')] })
    const ignored = await request(spoofed.app)
      .get('/api/auth/providers')
      .set('Host', 'evil.example')
      .set('X-Forwarded-Host', 'evil.example')
    expect(ignored.body.gh.signinUrl).toBe('http://localhost:3000/api/auth/signin/gh')
  })
})
