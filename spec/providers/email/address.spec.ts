import { emailIdentifier, normalizeAddress } from '../../../lib/features/email/address'

/** One mailbox, and only one: what the address rules let through, and what they refuse. */
describe('e-mail addresses', () => {
  it.each([
    ['Ada@Example.COM', 'Ada@example.com'],
    ['  ada@example.com  ', 'ada@example.com'],
    ['ada＠example.com', 'ada@example.com'],
    ['ａｄａ@ｅｘａｍｐｌｅ.com', 'ada@example.com'],
    ["o'brien+tag@example.co.uk", "o'brien+tag@example.co.uk"],
    ['joerg@bücher.de', 'joerg@xn--bcher-kva.de'],
    ['a.b.c@sub.example.com', 'a.b.c@sub.example.com'],
  ])('accepts %j as %j', (raw, normalized) => {
    expect(normalizeAddress(raw)).toBe(normalized)
  })

  it.each([
    ['two addresses with a comma', 'a@example.com,b@evil.com'],
    ['two addresses with a semicolon', 'a@example.com;b@evil.com'],
    ['a quoted local part holding another address', '"victim@x.com"@evil.com'],
    ['a full-width ＠ that becomes a second @', 'victim@x.com＠evil.com'],
    ['CR/LF header injection', 'a@x.com\r\nBcc: evil@evil.com'],
    ['a display name with an address in angle brackets', 'Victim <victim@x.com>'],
    ['a comment', 'a(comment)@example.com'],
    ['a backslash', 'a\\b@example.com'],
    ['whitespace inside', 'a b@example.com'],
    ['a non-breaking space', 'a\u00a0b@example.com'],
    ['a NUL', 'a\u0000@example.com'],
    ['no @', 'example.com'],
    ['an empty local part', '@example.com'],
    ['a domain without a dot', 'a@localhost'],
    ['an IP literal', 'a@[127.0.0.1]'],
    ['a numeric top-level label', 'a@1.2.3.4'],
    ['double dots', 'a..b@example.com'],
    ['a leading dot', '.a@example.com'],
    ['a domain label starting with a hyphen', 'a@-example.com'],
    ['a local part over 64 characters', `${'a'.repeat(65)}@example.com`],
    ['over 254 characters', `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`],
    ['a non-string', ['a@example.com']],
    ['a percent route (relays deliver user%other@here to other)', 'attacker%evil.example@example.com'],
    ['a bang path', 'evil.example!attacker@example.com'],
    ['an encoded word', '=?utf-8?q?attacker=40evil.example?=@example.com'],
    ['a non-ASCII local part (an invisible Hangul filler, say)', 'victim\u3164@example.com'],
    ['a local part in another script', 'jörg@example.com'],
    ['a huge string', `${'a'.repeat(5000)}@example.com`],
  ])('refuses %s', (_label, raw) => {
    expect(normalizeAddress(raw)).toBeNull()
  })
})

/** Who signs in: one mailbox is one user, unless the app's rule says otherwise (and answers one mailbox). */
describe('the identifier of an e-mail sign-in', () => {
  it.each([
    ['Carol@Example.COM', 'carol@example.com'],
    ['CAROL@EXAMPLE.COM', 'carol@example.com'],
    ["  Carol.O'Brien+Tag@example.com ", "carol.o'brien+tag@example.com"],
    ['ＣＡＲＯＬ@example.com', 'carol@example.com'],
  ])('is the address in lower case by default: %j is %j', (raw, identifier) => {
    expect(emailIdentifier(raw, undefined)).toBe(identifier)
  })

  it("is the app's rule's answer, in the package's form, when it is one plain mailbox", () => {
    expect(emailIdentifier('Carol@Example.com', (address) => address)).toBe('Carol@example.com')
    expect(emailIdentifier('carol+news@example.com', (address) => address.replace('+news', ''))).toBe(
      'carol@example.com',
    )
    expect(emailIdentifier('carol@example.com', () => ' Carol@EXAMPLE.com ')).toBe('Carol@example.com')
  })

  it('is null for an address that is not one plain mailbox, without asking the rule', () => {
    const rule = jest.fn((address: string) => address)
    expect(emailIdentifier('a@example.com,b@evil.example', rule)).toBeNull()
    expect(emailIdentifier(undefined, rule)).toBeNull()
    expect(rule).not.toHaveBeenCalled()
  })

  it.each<[string, () => unknown]>([
    ['a number', () => 42],
    ['null', () => null],
    ['two addresses', () => 'a@example.com,b@evil.example'],
    ['a String object', () => new String('a@example.com')],
    ['a promise', () => Promise.resolve('a@example.com')],
    [
      'a throw',
      () => {
        throw new Error('no')
      },
    ],
  ])('is null when the rule answers %s', (_label, rule) => {
    expect(emailIdentifier('carol@example.com', rule)).toBeNull()
  })
})
