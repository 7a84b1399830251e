import { createTransport } from 'nodemailer'
import { deadSmtpUrl, hrefs, linkInText, signInLink, startSilentSmtp, startSmtp } from './smtp'

// The mail servers the e-mail flow specs send to: a capture that kept nothing, or a link reader that
// found nothing, would let "no mail was sent" pass for the wrong reason. Sent here with nodemailer
// over SMTP, as the service sends.
const BASE = 'http://localhost:3000/api/auth'
const LINK = `${BASE}/callback/email?token=abc_-123&email=alice%40example.com&callbackUrl=%2Fwelcome`

describe('startSmtp', () => {
  it('keeps each message with its envelope, headers and both parts', async () => {
    const smtp = await startSmtp()
    try {
      await createTransport(smtp.url).sendMail({
        from: 'auth@example.com',
        to: 'alice@example.com',
        subject: 'Sign in to localhost:3000',
        text: `Sign in:\n${LINK}\n`,
        html: `<p><a href="${LINK.replaceAll('&', '&amp;')}">Sign in</a></p>`,
      })
      const mail = await smtp.nextMessage(1000)
      expect(mail).toMatchObject({
        envelope: { from: 'auth@example.com', to: ['alice@example.com'] },
        to: ['alice@example.com'],
        from: 'auth@example.com',
        subject: 'Sign in to localhost:3000',
      })
      expect(mail.contentTypes).toEqual(['multipart/alternative', 'text/plain', 'text/html'])
      expect(signInLink(mail, BASE).href).toBe(LINK)
      expect(smtp.recipientsAsked()).toEqual(['alice@example.com'])
      expect(smtp.messages()).toHaveLength(1)
      await expect(smtp.nextMessage(100)).rejects.toThrow('no message within 100 ms')
    } finally {
      await smtp.close()
    }
  })

  it('refuses the recipients it is told to with 550, and keeps nothing', async () => {
    const smtp = await startSmtp({ refuse: (address) => address === 'gone@example.com' })
    try {
      const sending = createTransport(smtp.url).sendMail({ from: 'a@example.com', to: 'gone@example.com', text: 'x' })
      await expect(sending).rejects.toMatchObject({ responseCode: 550 })
      expect(smtp.recipientsAsked()).toEqual(['gone@example.com'])
      expect(await smtp.messagesAfter(50)).toEqual([])
    } finally {
      await smtp.close()
    }
  })

  it('refuses with another code when told, and nodemailer reports the refused recipient', async () => {
    const smtp = await startSmtp({ refuse: () => true, refuseCode: 450 })
    try {
      const sending = createTransport(smtp.url).sendMail({ from: 'a@example.com', to: 'gone@example.com', text: 'x' })
      await expect(sending).rejects.toMatchObject({
        code: 'EENVELOPE',
        command: 'RCPT TO',
        responseCode: 450,
        rejected: ['gone@example.com'],
      })
    } finally {
      await smtp.close()
    }
  })

  it('takes dataDelay milliseconds to accept a message: the send resolves no earlier', async () => {
    const smtp = await startSmtp({ dataDelay: 200 })
    try {
      const started = performance.now()
      await createTransport(smtp.url).sendMail({ from: 'a@example.com', to: 'b@example.com', text: 'x' })
      expect(performance.now() - started).toBeGreaterThanOrEqual(200)
      expect(smtp.messages()).toHaveLength(1)
    } finally {
      await smtp.close()
    }
  })
})

describe('the servers that fail', () => {
  it('startSilentSmtp accepts the connection and never greets', async () => {
    const silent = await startSilentSmtp()
    try {
      const sending = createTransport({ host: '127.0.0.1', port: silent.port, greetingTimeout: 200 }).sendMail({
        from: 'a@example.com',
        to: 'b@example.com',
        text: 'x',
      })
      await expect(sending).rejects.toMatchObject({ code: 'ETIMEDOUT' })
      expect(silent.connections()).toBe(1)
    } finally {
      await silent.close()
    }
  })

  it('deadSmtpUrl: nothing listens there', async () => {
    const sending = createTransport(await deadSmtpUrl()).sendMail({ from: 'a@example.com', to: 'b@example.com' })
    await expect(sending).rejects.toMatchObject({ code: 'ESOCKET' })
  })
})

describe('reading the link', () => {
  it('finds the one sign-in link of the text, and the same link in the HTML', () => {
    expect(linkInText(`Open\n  ${LINK}  \nor ignore https://example.com/help`, BASE).href).toBe(LINK)
    expect(hrefs(`<a href='${LINK.replaceAll('&', '&#38;')}'>x</a>`)).toEqual([LINK])
    expect(() => signInLink({ text: LINK, html: '<a href="http://localhost:3000/other">x</a>' }, BASE)).toThrow()
  })

  it('fails on no link, or on two different ones', () => {
    expect(() => linkInText('no link here', BASE)).toThrow('found 0')
    expect(() => linkInText(`${LINK}\n${LINK}x`, BASE)).toThrow('found 2')
  })
})
