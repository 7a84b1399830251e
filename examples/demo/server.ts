import express from 'express'
import { auth, type Session } from '../../lib'
import { homePage, privatePage } from './pages'
import { readSettings } from './settings'

/**
 * The demo behind `npm start`: an Express app with the auth service mounted at /api/auth, a home
 * page that shows who is signed in, and a page guarded by requireAuth().
 */
const settings = readSettings(process.env)
if (settings.secretIsRandom) {
  process.stderr.write('demo: SERVICE_AUTH_SECRET is not set; using a random secret, so sessions end when the demo restarts\n')
}

const authRouter = auth({ url: settings.url, secret: settings.secret, providers: [] })

const app = express()
app.use('/api/auth', authRouter)
app.get('/', async (req, res, next) => {
  try {
    res.type('html').send(homePage(await authRouter.getSession(req)))
  } catch (error) {
    next(error)
  }
})
app.get('/private', authRouter.requireAuth(), (_req, res) => {
  res.type('html').send(privatePage(res.locals.session as Session))
})

const server = app.listen(settings.port, () => {
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : settings.port
  process.stdout.write(`demo: listening on http://localhost:${port} (auth service at ${settings.url})\n`)
})
