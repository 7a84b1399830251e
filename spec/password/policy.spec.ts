/**
 * The password policy of NIST SP 800-63B-4 (§3.1.1.2): NFKC first, then the length in code points
 * between the minimum and the maximum, never truncated; no composition rules; refused when on the
 * common-password list, when it contains the identifier or the app's name, and (only once the local
 * rules pass) when the range API knows it as breached. Every rule that fails is listed at once.
 */
import type { Log } from '../../lib/infra/logger'
import type { BreachedOptions } from '../../lib/features/password/breached'
import {
  codePoints,
  normalizePassword,
  passwordPolicy,
  type PasswordReason,
  type PolicyOptions,
} from '../../lib/features/password/policy'
import { startRangeServer, type RangeServer } from '../support/pwned-range'

const OPTIONS: PolicyOptions = { minLength: 15, maxLength: 128, appNames: [], breached: null }
const policy = (options: Partial<PolicyOptions> = {}, log?: Log) => passwordPolicy({ ...OPTIONS, ...options }, log)
const reasons = async (
  password: string,
  options: Partial<PolicyOptions> = {},
  identifier: string | null = null,
): Promise<readonly PasswordReason[]> => (await policy(options).check(password, { identifier })).reasons

describe('normalizePassword and codePoints', () => {
  it('applies NFKC: compatibility forms and composed accents become one spelling', () => {
    expect(normalizePassword('ｐａｓｓｗｏｒｄ')).toBe('password')
    expect(normalizePassword('\ufb01ve')).toBe('five')
    expect(normalizePassword('cafe\u0301')).toBe('caf\u00e9')
    expect(normalizePassword('Ⅻ')).toBe('XII')
  })

  it('never truncates', () => {
    const long = 'x'.repeat(5000) + '€'
    expect(normalizePassword(long)).toBe(long)
  })

  it('counts code points, not UTF-16 units', () => {
    expect(codePoints('😀')).toBe(1)
    expect('😀'.length).toBe(2)
    expect(codePoints('a😀b')).toBe(3)
    expect(codePoints('')).toBe(0)
  })
})

describe('length', () => {
  it('needs minLength code points', async () => {
    expect(await reasons('x'.repeat(14) + '.')).toEqual([])
    expect(await reasons('x'.repeat(13) + '.')).toEqual(['tooShort'])
    expect(await reasons('')).toEqual(['tooShort'])
  })

  it('allows maxLength code points and refuses one more, never cutting it to fit', async () => {
    expect(await reasons('y'.repeat(128))).toEqual([])
    expect(await reasons('y'.repeat(129))).toEqual(['tooLong'])
    expect(await reasons('y'.repeat(70), { maxLength: 64 })).toEqual(['tooLong'])
  })

  it('counts code points: 15 emoji are 15, not 30', async () => {
    expect(await reasons('🐱🐶🐭🐹🐰🦊🐻🐼🐨🐯🦁🐮🐷🐸🐵')).toEqual([])
    expect(await reasons('🐱'.repeat(14))).toEqual(['tooShort'])
    expect(await reasons('🐱'.repeat(128))).toEqual([])
  })

  it('counts after NFKC: a decomposed accent is one code point, a ligature two', async () => {
    // 15 x "e + combining acute" is 30 code points as typed, 15 once composed.
    expect(await reasons('e\u0301'.repeat(15), { minLength: 16 })).toEqual(['tooShort'])
    // 8 x "ﬃ" is 8 code points as typed, 24 once decomposed.
    expect(await reasons('\ufb03'.repeat(8))).toEqual([])
  })
})

describe('no composition rules', () => {
  it.each([
    ['lower case only', 'alllowercaseletters'],
    ['digits only', '804277159363510'],
    ['spaces', 'four words with spaces'],
    ['any script', 'пароль из слов и пробелов'],
    ['symbols only', '!@#$%^&*()_+-=[]{}'],
  ])('accepts %s', async (_, password) => {
    expect(await reasons(password)).toEqual([])
  })
})

describe('common passwords', () => {
  it('refuses a password from the list, whatever its case and width', async () => {
    expect(await reasons('passwordpassword')).toEqual(['common'])
    expect(await reasons('PassWordPassWord')).toEqual(['common'])
    expect(await reasons('ｐａｓｓｗｏｒｄｐａｓｓｗｏｒｄ')).toEqual(['common'])
    expect(await reasons('1qaz2wsx3edc4rfv')).toEqual(['common'])
  })

  it('looks at the whole password, with a lower minimum too', async () => {
    expect(await reasons('password', { minLength: 8 })).toEqual(['common'])
    expect(await reasons('dragon', { minLength: 8 })).toEqual(['tooShort', 'common'])
    expect(await reasons('password-is-not-the-whole-thing', { minLength: 8 })).toEqual([])
  })
})

describe('context words', () => {
  it('refuses a password containing the whole identifier, in any case', async () => {
    expect(await reasons('my name is grace.hopper2024', {}, 'grace.hopper2024')).toEqual(['containsIdentifier'])
    expect(await reasons('xx-GRACE.HOPPER2024-xx', {}, 'grace.hopper2024')).toEqual(['containsIdentifier'])
  })

  it('refuses one containing the whole address or its local part of 4 or more', async () => {
    expect(await reasons('my address: carol@example.com', {}, 'carol@example.com')).toEqual(['containsIdentifier'])
    expect(await reasons('hello Carol, how are you', {}, 'carol@example.com')).toEqual(['containsIdentifier'])
    expect(await reasons('hello bob, how are you today', {}, 'bob@example.com')).toEqual([])
    expect(await reasons('write to bob@example.com now', {}, 'bob@example.com')).toEqual(['containsIdentifier'])
  })

  it('skips an identifier shorter than 4, and no identifier at all', async () => {
    expect(await reasons('jo jo jo jo jo jo jo', {}, 'jo')).toEqual([])
    expect(await reasons('grace.hopper2024 rocks', {}, null)).toEqual([])
    expect(await reasons('grace.hopper2024 rocks', {}, '')).toEqual([])
  })

  it('refuses a password containing an app name of 4 or more, in any case and width', async () => {
    const appNames = ['Acme Bank', 'Io']
    expect(await reasons('i love acme bank very much', { appNames })).toEqual(['containsAppName'])
    expect(await reasons('ＡＣＭＥ ＢＡＮＫ is great!', { appNames })).toEqual(['containsAppName'])
    expect(await reasons('io io io io io io io io', { appNames })).toEqual([])
  })
})

describe('every reason at once', () => {
  it('lists each rule that failed, in a fixed order', async () => {
    const check = await policy({ minLength: 20, appNames: ['dragon'] }).check('dragon', { identifier: 'dragon' })
    expect(check).toEqual({ ok: false, reasons: ['tooShort', 'common', 'containsIdentifier', 'containsAppName'] })
    expect(Object.isFrozen(check)).toBe(true)
    expect(Object.isFrozen(check.reasons)).toBe(true)
  })

  it('says what it enforces', () => {
    expect(policy({ minLength: 12, maxLength: 256 })).toMatchObject({ minLength: 12, maxLength: 256 })
  })
})

describe('breached passwords', () => {
  const BREACHED = 'correct horse battery staple'
  let server: RangeServer
  let warnings: string[]
  const log: Log = (level, event) => void warnings.push(`${level} ${event}`)
  const breached = (onUnavailable: BreachedOptions['onUnavailable']): BreachedOptions => ({
    url: server.url,
    timeout: 1000,
    onUnavailable,
  })

  beforeEach(async () => {
    server = await startRangeServer({ breached: [BREACHED, 'breach'] })
    warnings = []
  })
  afterEach(() => server.stop())

  it('refuses a password the range API knows, after NFKC', async () => {
    const strict = policy({ breached: breached('allow') }, log)
    expect(await strict.check(BREACHED, {})).toEqual({ ok: false, reasons: ['breached'] })
    expect(await strict.check('ｃｏｒｒｅｃｔ horse battery staple', {})).toEqual({ ok: false, reasons: ['breached'] })
    expect(await strict.check('a passphrase nobody has breached', {})).toEqual({ ok: true, reasons: [] })
  })

  it('asks the range API only once the local rules pass', async () => {
    const strict = policy({ breached: breached('allow') }, log)
    expect((await strict.check('breach', {})).reasons).toEqual(['tooShort'])
    expect((await strict.check(BREACHED, { identifier: 'horse' })).reasons).toEqual(['containsIdentifier'])
    expect(server.requests).toEqual([])
  })

  it('without an answer: unverifiable with refuse; a pass and a warning with allow', async () => {
    server.mode = 'down'
    expect((await policy({ breached: breached('refuse') }, log).check(BREACHED, {})).reasons).toEqual(['unverifiable'])
    expect(await policy({ breached: breached('allow') }, log).check(BREACHED, {})).toEqual({ ok: true, reasons: [] })
    expect(warnings).toEqual(['warn password.breach_check_unavailable', 'warn password.breach_check_unavailable'])
  })

  it('asks nothing when the check is off', async () => {
    expect(await policy({ breached: null }).check(BREACHED, {})).toEqual({ ok: true, reasons: [] })
    expect(server.requests).toEqual([])
  })
})
