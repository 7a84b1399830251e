import { readFileSync } from 'node:fs'
import path from 'node:path'
import * as ejs from 'ejs'
import { en, format, type Messages } from './messages'
import { VIEWS_DIR } from './render'

/** The sign-in mail: subject, text and HTML, with the link and the service's host and nothing else. */
export interface SignInMail {
  readonly subject: string
  readonly text: string
  readonly html: string
}

function compile(name: 'email-text' | 'email-html', escape?: (text: string) => string): ejs.TemplateFunction {
  const filename = path.join(VIEWS_DIR, `${name}.ejs`)
  return ejs.compile(readFileSync(filename, 'utf8'), {
    filename,
    strict: true,
    destructuredLocals: ['t', 'fmt', 'url', 'host'],
    ...(escape ? { escape } : {}),
  })
}

// The text part is not HTML: nothing in it is HTML-escaped (its only values are the link and the host).
const TEXT = compile('email-text', (text) => text)
const HTML = compile('email-html')

export function renderSignInMail(url: string, host: string, t: Messages = en): SignInMail {
  const locals = { t, fmt: format, url, host }
  return { subject: format(t.email.subject, { host }), text: TEXT(locals), html: HTML(locals) }
}
