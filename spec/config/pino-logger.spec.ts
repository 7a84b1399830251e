import { Writable } from 'node:stream'
import pino from 'pino'
import request from 'supertest'
import { makeApp } from '../support/app'
import { configError } from '../support/config-error'

// `logger: pino()`: a logger with pino's methods takes the entries directly, each at its level,
// its fields as pino's object and its message as pino's message.
function capturingPino() {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>)
      done()
    },
  })
  return { logger: pino({ level: 'debug' }, stream), lines }
}

describe('a pino logger', () => {
  it('gets every entry at its level, with the event and fields as its object and the message as its msg', async () => {
    const { logger, lines } = capturingPino()
    const { app } = makeApp({ logger })
    await request(app).post('/api/auth/signout').type('form').send({ csrfToken: 'forged' }).expect(302)
    const entry = lines.find((line) => line.event === 'csrf.invalid')
    expect(entry).toMatchObject({
      level: 40, // pino's warn
      event: 'csrf.invalid',
      route: 'signout',
      msg: 'a POST without a valid CSRF token was refused; nothing was changed',
    })
  })

  it('refuses a winston logger (its methods take the message first) and names the function form', () => {
    const noop = () => undefined
    const winstonLike = { error: noop, warn: noop, info: noop, debug: noop, log: noop, transports: [] }
    expect(configError(() => makeApp({ logger: winstonLike as never }))).toBe(
      '`logger` got a winston logger, whose methods take (message, meta): write `logger: (e) => winston.log(e)`',
    )
  })

  it('is refused at auth() when it lacks one of the four methods', () => {
    const { logger } = capturingPino()
    const { debug: _debug, ...partial } = { error: logger.error, warn: logger.warn, info: logger.info, debug: null }
    expect(configError(() => makeApp({ logger: partial as never }))).toMatch(
      /^`logger` must be a function receiving each log entry, a logger with pino's methods/,
    )
  })
})
