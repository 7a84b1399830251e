// Express 5 alone, the reference: the session-shaped JSON a signed-in user gets, on the same path.
// Usage: node bench/servers/express.js <json|floor>
const express = require('express')
const { ADDRESS, listen } = require('./listen')

const session = {
  user: { name: null, email: ADDRESS, image: null },
  expires: new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString(),
}
const app = express()
if (process.argv[2] === 'floor') {
  // The floor: Express's routing and the cheapest possible write of the same bytes.
  const body = JSON.stringify(session)
  app.get('/api/auth/session', (_req, res) => {
    res.setHeader('Content-Type', 'application/json')
    res.end(body)
  })
} else {
  // What an Express app pays for a JSON answer: res.json stringifies and sets an ETag each time.
  app.get('/api/auth/session', (_req, res) => {
    res.json(session)
  })
}
listen(app)
