import request from 'supertest'
import { de, email } from '../../lib'
import { configError } from '../support/config-error'
import { makeApp } from '../support/app'
import { csrfPair } from '../support/csrf'

// The pages in the reader's language: the app's translations merged over English, chosen by
// `language` or by each request's Accept-Language.
const heading = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1]
const lang = (html: string) => /<html lang="([^"]*)">/.exec(html)?.[1]

describe('languages', () => {
  it('answers in German to a reader who prefers it, in English to everyone else, and says it varies', async () => {
    const { app } = makeApp({ languages: { de } })
    const german = await request(app).get('/api/auth/signout').set('Accept-Language', 'de-CH, de;q=0.9, en;q=0.5')
    expect(heading(german.text)).toBe('Abmelden')
    expect(lang(german.text)).toBe('de')
    expect(german.headers.vary).toMatch(/Accept-Language/)
    const english = await request(app).get('/api/auth/signout').set('Accept-Language', 'fr, en;q=0.8, de;q=0.7')
    expect(heading(english.text)).toBe('Sign out')
    const none = await request(app).get('/api/auth/signout')
    expect(lang(none.text)).toBe('en')
  })

  it.each([
    // Past the first 512 characters, nothing is read: de comes too late.
    ['Sign out', 'de;q=0'],
    ['Sign out', 'de;q=abc'],
    ['Sign out', '*'],
    ['Abmelden', 'en;q=0.1, de;q=0.2'],
    ['Abmelden', 'DE-at'],
    ['Sign out', `${'x,'.repeat(5000)}de`.slice(0, 10_000)],
    ['Sign out', 'constructor, __proto__'],
  ])('answers %s to Accept-Language case %#', async (expected, header) => {
    const { app } = makeApp({ languages: { de } })
    const res = await request(app).get('/api/auth/signout').set('Accept-Language', header)
    expect(heading(res.text)).toBe(expected)
  })

  it("merges an app's partial translation over English, and `language` fixes it for everyone", async () => {
    const { app } = makeApp({
      languages: { 'pt-BR': { signout: { heading: 'Sair' } } },
      language: 'pt-BR',
    })
    const res = await request(app).get('/api/auth/signout').set('Accept-Language', 'en')
    expect(heading(res.text)).toBe('Sair')
    expect(lang(res.text)).toBe('pt-BR')
    expect(res.text).toContain('Are you sure you want to sign out?')
    expect(res.headers.vary ?? '').not.toMatch(/Accept-Language/)
  })

  it('translates error pages, including those the router answers itself', async () => {
    const { app } = makeApp({ languages: { de } })
    const page = await request(app).get('/api/auth/error?error=Verification').set('Accept-Language', 'de')
    expect(heading(page.text)).toBe('Anmeldung nicht möglich')
    const missing = await request(app).get('/api/auth/nowhere').set('Accept-Language', 'de')
    expect(missing.status).toBe(404)
    expect(heading(missing.text)).toBe('Seite nicht gefunden')
  })

  it('writes the sign-in mail in the language of the request that asked for it', async () => {
    const mails: string[] = []
    const { app } = makeApp({
      languages: { de },
      providers: [
        email({
          from: 'auth@example.com',
          transport: {
            sendMail: async (mail: { subject: string; text: string }) => {
              mails.push(`${mail.subject}\n${mail.text}`)
            },
          },
        }),
      ],
    })
    const { token, cookie } = await csrfPair(app)
    await request(app)
      .post('/api/auth/signin/email')
      .set('Cookie', cookie)
      .set('Accept-Language', 'de')
      .type('form')
      .send({ csrfToken: token, email: 'leser@example.com' })
      .expect(302)
    expect(mails).toHaveLength(1)
    expect(mails[0]).toMatch(/^Bei localhost:3000 anmelden\n/)
    expect(mails[0]).toContain('Öffnen Sie diesen Link')
  })

  it.each([
    [{ languages: { de: { signout: { heading: 5 } } } }, '`languages.de.signout.heading` must be a string; got 5'],
    [
      { languages: { de: { signout: { headline: 'x' } } } },
      'Unknown option `languages.de.signout.headline`. Did you mean `languages.de.signout.heading`?',
    ],
    [
      { languages: { 'not a tag': {} } },
      "`languages` keys must be language tags such as 'de' or 'pt-BR'; got \"not a tag\"",
    ],
    [{ languages: { de }, language: 'fr' }, '`language` must be \'en\' or a key of `languages` (en, de); got "fr"'],
    [{ languages: [] }, '`languages` must be an object of translations by language tag, such as { de }; got an array'],
  ])('fails fast at auth() on a bad translation: %#', (options, message) => {
    expect(configError(() => makeApp(options as never))).toBe(message)
  })
})
