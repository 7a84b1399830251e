// A provider for the `tokens` variant of package.js, in its process: authorization sends the
// browser straight back with a code; the token endpoint answers an access token valid for an hour.
const { createServer } = require('node:http')

/** Listens on 127.0.0.1; resolves to its origin. */
exports.startOAuthStub = () =>
  new Promise((resolve) => {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://stub')
      if (url.pathname === '/authorize') {
        const back = new URL(url.searchParams.get('redirect_uri') ?? 'http://localhost/')
        back.searchParams.set('code', 'bench-code')
        back.searchParams.set('state', url.searchParams.get('state') ?? '')
        res.writeHead(302, { location: back.href })
        return void res.end()
      }
      if (url.pathname === '/token') {
        req.resume()
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(
            JSON.stringify({
              access_token: 'bench-access-token',
              refresh_token: 'bench-refresh-token',
              token_type: 'Bearer',
              expires_in: 3600,
            }),
          )
        })
        return
      }
      res.writeHead(404)
      res.end()
    })
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`))
    server.unref()
  })
