import { createServer, type Socket } from 'node:net'
import { simpleParser, type AddressObject } from 'mailparser'
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server'
import { decodeEntities } from './forms'
import { freePort } from './process'

/**
 * Mail servers on loopback for the e-mail sign-in specs: the service sends through nodemailer over
 * real SMTP to them. `startSmtp` is a mail server (smtp-server) that keeps every message it accepts,
 * parsed (mailparser); it can refuse recipients (550, or another code) and take its time over each
 * message it accepts. `startSilentSmtp` accepts connections
 * and never says a word (not even the greeting). `deadSmtpUrl` is a port where nothing listens.
 */

/** One message as the mail server received it. */
export interface Mail {
  /** The SMTP envelope: MAIL FROM and every RCPT TO. */
  envelope: { from: string; to: string[] }
  /** Header values by lower-case name, as mailparser reads them. */
  headers: Map<string, unknown>
  /** The header lines exactly as received (folded lines included). */
  headerLines: string[]
  /** The addresses of the To header. */
  to: string[]
  /** The From header, as text. */
  from: string
  subject: string
  /** The text/plain part ('' when there is none). */
  text: string
  /** The text/html part ('' when there is none). */
  html: string
  /** The MIME types of every part, in order (the multipart containers included). */
  contentTypes: string[]
  /** The whole message as received. */
  raw: string
}

export interface SmtpServer {
  port: number
  /** `smtp://127.0.0.1:<port>`, what the service's `server` option takes. */
  url: string
  /** Every message accepted so far. */
  messages(): Mail[]
  /** Every RCPT TO the server was asked, accepted or refused. */
  recipientsAsked(): string[]
  /** The next message not yet taken by `nextMessage`, as soon as it arrives; rejects after `timeoutMs`. */
  nextMessage(timeoutMs?: number): Promise<Mail>
  /** Waits `ms` (for a mail that would come late), then every message accepted so far. */
  messagesAfter(ms: number): Promise<Mail[]>
  close(): Promise<void>
}

export interface SmtpOptions {
  /** Recipients to refuse at RCPT TO with `550 <address>: Recipient address rejected`. */
  refuse?: (address: string) => boolean
  /** The reply code of those refusals (default 550; 450 as a server with soft bounces, 421 as one closing down). */
  refuseCode?: number
  /**
   * Milliseconds the server takes to accept a message once it has it (a content scanner's time): the
   * 250 after DATA comes that much later, so an accepted send takes longer than a refused recipient.
   */
  dataDelay?: number
}

export async function startSmtp(options: SmtpOptions = {}): Promise<SmtpServer> {
  const received: Mail[] = []
  const asked: string[] = []
  const waiting: Array<() => void> = []
  let taken = 0

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 200,
    onRcptTo(address, _session, callback) {
      asked.push(address.address)
      if (!options.refuse?.(address.address)) return callback()
      // As Postfix words it: the reply names the address (a log that keeps it would leak it).
      const refusal = new Error(`<${address.address}>: Recipient address rejected: mailbox unavailable`)
      callback(Object.assign(refusal, { responseCode: options.refuseCode ?? 550 }))
    },
    onData(stream, session, callback) {
      // The message is parsed and kept before the server answers 250: once the client's sendMail
      // resolves, the message is in `messages()`.
      read(stream)
        .then((raw) => parse(raw, session))
        .then(async (mail) => {
          if (options.dataDelay) await new Promise((resolve) => setTimeout(resolve, options.dataDelay))
          received.push(mail)
          waiting.splice(0).forEach((wake) => wake())
          callback()
        })
        .catch((error: Error) => callback(error))
    },
  })
  const port = await freePort()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })

  function nextMessage(timeoutMs = 5000): Promise<Mail> {
    return new Promise((resolve, reject) => {
      let expired = false
      const timer = setTimeout(() => {
        expired = true
        reject(new Error(`no message within ${timeoutMs} ms`))
      }, timeoutMs)
      const take = (): void => {
        if (expired) return // a message after the time-out is left for the next call
        const mail = received[taken]
        if (!mail) {
          waiting.push(take)
          return
        }
        taken++
        clearTimeout(timer)
        resolve(mail)
      }
      take()
    })
  }

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages: () => [...received],
    recipientsAsked: () => [...asked],
    nextMessage,
    messagesAfter: async (ms) => {
      await new Promise((resolve) => setTimeout(resolve, ms))
      return [...received]
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export interface SilentServer {
  port: number
  url: string
  /** How many connections it accepted. */
  connections(): number
  close(): Promise<void>
}

/** Accepts every connection and never answers: a mail server that hangs before its greeting. */
export async function startSilentSmtp(): Promise<SilentServer> {
  const sockets: Socket[] = []
  const server = createServer((socket) => {
    sockets.push(socket)
    socket.on('error', () => {})
  })
  const port = await freePort()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    connections: () => sockets.length,
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((socket) => socket.destroy())
        server.close(() => resolve())
      }),
  }
}

/** An SMTP URL where nothing listens (the connection is refused). */
export async function deadSmtpUrl(): Promise<string> {
  return `smtp://127.0.0.1:${await freePort()}`
}

/**
 * The sign-in link of a message: the one `{base}/callback/email?…` URL of its text part. The
 * HTML part must link to the very same URL.
 */
export function signInLink(mail: Pick<Mail, 'text' | 'html'>, base: string): URL {
  const link = linkInText(mail.text, base)
  expect(hrefs(mail.html)).toContain(link.href)
  return link
}

/** The one `{base}/callback/email?…` URL of a text (a plain-text body). */
export function linkInText(text: string, base: string): URL {
  const prefix = `${base}/callback/email?`
  const found = [...new Set((text.match(URLS) ?? []).filter((url) => url.startsWith(prefix)))]
  if (found.length !== 1) throw new Error(`expected one sign-in link in the text part; found ${found.length}:\n${text}`)
  return new URL(found[0]!)
}

/** Every `href` of an HTML text, character references decoded, as absolute URLs where they parse. */
export function hrefs(html: string): string[] {
  return [...html.matchAll(HREF)].map(([, double, single]) => {
    const value = decodeEntities(double ?? single ?? '')
    return URL.canParse(value) ? new URL(value).href : value
  })
}

/** The text with every `{base}/callback/email?…` URL in it replaced by a space. */
export function withoutSignInLinks(text: string, base: string): string {
  return text.replace(URLS, (url) => (url.startsWith(`${base}/callback/email?`) ? ' ' : url))
}

const URLS = /https?:\/\/[^\s<>"']+/g
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/gi
const CONTENT_TYPE = /^content-type:[ \t]*([\w.+-]+\/[\w.+-]+)/gim

function read(stream: SMTPServerDataStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    stream.on('error', reject)
  })
}

async function parse(raw: string, session: SMTPServerSession): Promise<Mail> {
  const parsed = await simpleParser(raw, { skipTextToHtml: true })
  const contentTypes = [...raw.matchAll(CONTENT_TYPE)].map(([, type = '']) => type.toLowerCase())
  return {
    envelope: {
      from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
    },
    headers: parsed.headers,
    headerLines: parsed.headerLines.map((line) => line.line),
    to: addresses(parsed.to),
    from: parsed.from?.text ?? '',
    subject: parsed.subject ?? '',
    // mailparser makes a text from the HTML when a message has none: only a real part counts.
    text: contentTypes.includes('text/plain') ? (parsed.text ?? '') : '',
    html: parsed.html || '',
    contentTypes,
    raw,
  }
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  return ([] as AddressObject[])
    .concat(field ?? [])
    .flatMap((object) => object.value)
    .map((address) => address.address ?? '')
}
