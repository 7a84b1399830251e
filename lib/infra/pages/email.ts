import { readFileSync } from 'node:fs'
import path from 'node:path'
import * as ejs from 'ejs'
import { en, format, type MailText, type Messages } from './messages'
import { VIEWS_DIR } from './render'

/** A mail: subject, text and HTML, with its texts, the link and the service's host and nothing else. */
export interface Mail {
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** The mails of `password()`: the sign-up link, the note that the address has an account, the reset link. */
export type PasswordMailKind = 'signup' | 'signupExists' | 'reset'

function compile(name: 'email-text' | 'email-html', escape?: (text: string) => string): ejs.TemplateFunction {
  const filename = path.join(VIEWS_DIR, `${name}.ejs`)
  return ejs.compile(readFileSync(filename, 'utf8'), {
    filename,
    strict: true,
    destructuredLocals: ['lang', 'mail', 'url'],
    ...(escape ? { escape } : {}),
  })
}

// The text part is not HTML: nothing in it is HTML-escaped (its values are our texts, the link and the host).
const TEXT = compile('email-text', (text) => text)
const HTML = compile('email-html')

/** One frame for every mail: `{host}` filled in each text; `message`, when there is one, under the heading. */
function render(t: Messages, texts: MailText & { message?: string }, url: string, host: string): Mail {
  const fill = (text: string) => format(text, { host })
  const mail = {
    subject: fill(texts.subject),
    heading: fill(texts.heading),
    message: texts.message === undefined ? '' : fill(texts.message),
    button: fill(texts.button),
    linkText: fill(texts.linkText),
    ignore: fill(texts.ignore),
  }
  const locals = { lang: t.lang, mail, url }
  return { subject: mail.subject, text: TEXT(locals), html: HTML(locals) }
}

export function renderSignInMail(url: string, host: string, t: Messages = en): Mail {
  return render(t, t.email, url, host)
}

/**
 * A password mail. `url`: the sign-up link, the reset link, or (`signupExists`) the sign-in page,
 * which changes nothing by being opened: that mail only tells the owner someone tried.
 */
export function renderPasswordMail(
  kind: PasswordMailKind,
  link: { url: string; host: string },
  t: Messages = en,
): Mail {
  return render(t, t.passwordMail[kind], link.url, link.host)
}
