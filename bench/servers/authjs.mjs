// @auth/express (Auth.js), the way its README mounts it, with its default JWT session.
// ESM-only, hence .mjs. BENCH_SECRET is the secret the bench also mints the session cookie with.
import express from 'express'
import { ExpressAuth } from '@auth/express'
import GitHub from '@auth/express/providers/github'
import Google from '@auth/express/providers/google'
import listenModule from './listen.js'

const app = express()
app.set('trust proxy', true)
app.use(
  '/api/auth',
  ExpressAuth({
    secret: process.env.BENCH_SECRET,
    trustHost: true,
    // Two providers, as the package's server lists two; neither is contacted.
    providers: [
      GitHub({ clientId: 'bench', clientSecret: 'bench-secret' }),
      Google({ clientId: 'bench', clientSecret: 'bench-secret' }),
    ],
  }),
)
listenModule.listen(app)
