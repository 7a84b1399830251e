import express from 'express'
import request from 'supertest'
import { auth } from '../../lib'
import { makeApp, testOptions } from '../support/app'

describe('where the router is mounted', () => {
  it('serves under the base path when mounted at the root, and leaves other paths to the app', async () => {
    const { app } = makeApp({}, null)
    await request(app).get('/api/auth/session').expect(200, {})
    await request(app).get('/api/authx/session').expect(404)
    await request(app).get('/').expect(200, 'home')
  })

  it('serves a custom base path from the URL (".../authentication")', async () => {
    const { app } = makeApp({ url: 'http://localhost:3000/prefix/authentication' }, null)
    await request(app).get('/prefix/authentication/csrf').expect(200)
    await request(app).get('/api/auth/csrf').expect(404)
  })

  it('serves at a suffix of the base path (a proxy that strips a prefix)', async () => {
    const { app } = makeApp({ url: 'https://example.com/app/api/auth' }, '/api/auth')
    const res = await request(app).get('/api/auth/providers').expect(200)
    expect(res.body).toEqual({})
  })

  it('reports any other mount path as a Configuration error naming both paths', async () => {
    const { logs, ...options } = testOptions()
    const app = express()
    app.use('/login', auth(options))
    const res = await request(app).get('/login/session').set('Accept', 'application/json').expect(500)
    expect(res.body).toEqual({ error: 'Configuration' })
    expect(logs.find((entry) => entry.event === 'request.invalid')?.message).toMatch(
      /mounted at "\/login" but the service's base path is "\/api\/auth"/,
    )
  })
})
