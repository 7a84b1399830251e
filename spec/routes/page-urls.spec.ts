import request from 'supertest'
import { makeApp } from '../support/app'

// The app's own pages (`pages.*`) get the request's query, and nothing else.
describe("the app's own pages", () => {
  it('GET /signin without a query goes to the page as configured', async () => {
    const { app } = makeApp({ pages: { signIn: '/login' } })
    const res = await request(app).get('/api/auth/signin')
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('http://localhost:3000/login')
  })

  it('GET /signin?… carries its query over', async () => {
    const { app } = makeApp({ pages: { signIn: '/login' } })
    const res = await request(app).get('/api/auth/signin?error=OAuthCallback&callbackUrl=%2Fdashboard')
    expect(res.headers.location).toBe('http://localhost:3000/login?error=OAuthCallback&callbackUrl=%2Fdashboard')
  })
})
