// The classic stack: express-session over connect-redis (ioredis), and Passport returning the user.
// BENCH_REDIS_URL and BENCH_REDIS_PREFIX name the Redis and the keys. POST /login signs the bench in.
const express = require('express')
const session = require('express-session')
const { RedisStore } = require('connect-redis')
const Redis = require('ioredis')
const { Passport } = require('passport')
const { ADDRESS, listen } = require('./listen')

const USER = { id: 'bench-1', name: null, email: ADDRESS, image: null }
const passport = new Passport()
passport.serializeUser((user, done) => done(null, user.id))
// A real app reads its user table here; an in-memory lookup keeps the comparison about sessions.
passport.deserializeUser((id, done) => done(null, id === USER.id ? USER : false))

const app = express()
app.use(
  session({
    store: new RedisStore({ client: new Redis(process.env.BENCH_REDIS_URL), prefix: process.env.BENCH_REDIS_PREFIX }),
    secret: process.env.BENCH_SECRET,
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', maxAge: 30 * 24 * 3600 * 1000 },
  }),
)
app.use(passport.initialize())
app.use(passport.session())
app.post('/login', (req, res, next) => req.login(USER, (error) => (error ? next(error) : res.status(204).end())))
app.get('/api/auth/session', (req, res) => {
  if (!req.user) return res.json({})
  const { name, email, image } = req.user
  res.json({ user: { name, email, image }, expires: req.session.cookie.expires.toISOString() })
})
listen(app)
