// One server per process, so that the load generator never shares a core's event loop with it.
// Usage: node bench/servers.js <bare|auth> ; prints "READY <port>".
const express = require('express')

const kind = process.argv[2]
const app = express()
if (kind === 'bare') {
  // What an Express app pays for a JSON answer on the same path.
  app.get('/api/auth/session', (_req, res) => {
    res.json({})
  })
} else if (kind === 'floor') {
  // The floor: Express routing plus the cheapest possible write.
  app.get('/api/auth/session', (_req, res) => {
    res.setHeader('Content-Type', 'application/json')
    res.end('{}')
  })
} else {
  const { auth } = require('../dist/lib')
  app.use('/api/auth', auth({ url: 'http://localhost/api/auth', secret: 'b'.repeat(40), logger: false }))
}
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`))
