import { randomBytes } from 'node:crypto'
import { decodeBase64url, isCanonicalBase64url } from '../../lib/infra/crypto/base64url'

// One token, one spelling: the decoder of request input answers the bytes only for the text Node
// itself would write for them, and null for every other spelling Node's lenient decoder accepts.

const ALPHABET = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_']
/** The oracle, independent of lib/: text is canonical when decoding and encoding again gives it back. */
const reencodes = (text: string) => Buffer.from(text, 'base64url').toString('base64url') === text
/** `text` with its last character replaced by `char`. */
const lastAs = (text: string, char: string) => text.slice(0, -1) + char

describe('canonical base64url', () => {
  it.each([0, 1, 2, 3, 12, 16, 32, 33, 34, 100])('decodes what Node writes for %i random bytes', (length) => {
    const bytes = randomBytes(length)
    expect(decodeBase64url(bytes.toString('base64url'))).toEqual(bytes)
  })

  it('refuses a 2-character tail (one byte) whose last character has any of its 4 spare bits set', () => {
    const text = Buffer.from([0xff]).toString('base64url') // "_w": 12 bits for 8
    const twins = ALPHABET.filter((char) => char !== 'w' && Buffer.from(lastAs(text, char), 'base64url')[0] === 0xff)
    expect(twins).toHaveLength(15)
    for (const twin of twins) expect(decodeBase64url(lastAs(text, twin))).toBeNull()
    expect(decodeBase64url(text)).toEqual(Buffer.from([0xff]))
  })

  it('refuses a 3-character tail (two bytes) whose last character has either of its 2 spare bits set', () => {
    const text = Buffer.from([0xab, 0xcd, 0xef, 0x01, 0x02]).toString('base64url') // 7 characters
    const bytes = Buffer.from(text, 'base64url')
    const twins = ALPHABET.filter((char) => lastAs(text, char) !== text)
      .map((char) => lastAs(text, char))
      .filter((twin) => Buffer.from(twin, 'base64url').equals(bytes))
    expect(twins).toHaveLength(3)
    for (const twin of twins) expect(decodeBase64url(twin)).toBeNull()
  })

  it('refuses an extra character past the last group, which Node ignores', () => {
    const iv = randomBytes(12).toString('base64url') // 16 characters, no tail
    for (const extra of ['A', 'x', '-', '_']) {
      expect(Buffer.from(iv + extra, 'base64url')).toEqual(Buffer.from(iv, 'base64url'))
      expect(decodeBase64url(iv + extra)).toBeNull()
    }
    expect(decodeBase64url('A')).toBeNull()
  })

  it.each([
    ['padding', (text: string) => `${text}==`],
    ['one padding character', (text: string) => `${text}=`],
    ['a leading space', (text: string) => ` ${text}`],
    ['a trailing newline', (text: string) => `${text}\n`],
    ['a space inside', (text: string) => `${text.slice(0, 4)} ${text.slice(4)}`],
    ['a tab inside', (text: string) => `${text.slice(0, 4)}\t${text.slice(4)}`],
    ['a carriage return and newline', (text: string) => `${text.slice(0, 4)}\r\n${text.slice(4)}`],
    ['a dot', (text: string) => `${text.slice(0, 4)}.${text.slice(4)}`],
    ['a percent escape', (text: string) => `${text.slice(0, 4)}%41${text.slice(4)}`],
  ])('refuses %s', (_label, respell) => {
    const text = Buffer.from([0xfb, 0xff, 0xbf, 0x10]).toString('base64url') // "-_-_EA"
    expect(decodeBase64url(respell(text))).toBeNull()
  })

  it("refuses standard base64's + and / for base64url's - and _, though Node decodes both the same", () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf])
    const standard = bytes.toString('base64') // "+/+/"
    expect(Buffer.from(standard, 'base64url')).toEqual(bytes)
    expect(decodeBase64url(standard)).toBeNull()
    expect(decodeBase64url('-/-/')).toBeNull()
    expect(decodeBase64url('+_+_')).toBeNull()
    expect(decodeBase64url(bytes.toString('base64url'))).toEqual(bytes)
  })

  it('refuses characters outside ASCII that look alike or decode to nothing', () => {
    for (const text of ['AAAА', 'AAA\u0000', 'ＡＡＡＡ', 'AA\u00e9A', 'AA\ud800A'])
      expect(decodeBase64url(text)).toBeNull()
  })

  it('agrees with decode-and-encode-again on every text of up to 3 characters, and on every last character after longer ones', () => {
    const texts = ['']
    for (const a of ALPHABET) {
      texts.push(a)
      for (const b of ALPHABET) {
        texts.push(a + b)
        for (const c of ALPHABET) texts.push(a + b + c)
      }
    }
    for (const prefix of ['AAAA', 'AAAAA', 'AAAAAA', randomBytes(30).toString('base64url')])
      for (const last of ALPHABET) texts.push(prefix + last)
    const disagreeing = texts.filter((text) => isCanonicalBase64url(text) !== reencodes(text))
    expect(disagreeing).toEqual([])
    // '', then 2 characters with 4 spare bits, 3 with 2; after 4, 5 and 6: none, 4 and 16 last characters; after 40 none.
    expect(texts.filter(isCanonicalBase64url)).toHaveLength(1 + 64 * 4 + 64 * 64 * 16 + 0 + 4 + 16 + 0)
  })

  it('answers null, without throwing, for text of any length', () => {
    expect(decodeBase64url('A'.repeat(100_001))).toBeNull()
    expect(decodeBase64url('A'.repeat(100_000))).toHaveLength(75_000)
  })
})
