import { passwordPolicy, commonPasswordCount, type PolicyOptions } from '../../lib/features/password/policy'
import { isBreached, resolveBreached } from '../../lib/features/password/breached'
import { ConfigurationError } from '../../lib'
import { startRangeServer, type RangeServer } from '../support/pwned-range'

const LOCAL: PolicyOptions = { minLength: 15, maxLength: 128, appNames: ['Acme Portal'], breached: null }

describe('the password policy (NIST SP 800-63B-4)', () => {
  const policy = passwordPolicy(LOCAL)

  it('counts code points after NFKC: 15 of them pass, 14 do not; an emoji counts once; never truncated', async () => {
    expect(await policy.check('a'.repeat(14) + 'z', {})).toEqual({ ok: true, reasons: [] })
    expect(await policy.check('abcdefghijklmn', {})).toEqual({ ok: false, reasons: ['tooShort'] })
    // 14 emoji are 28 UTF-16 units but 14 characters.
    expect((await policy.check('🦊'.repeat(14), {})).reasons).toEqual(['tooShort'])
    expect((await policy.check('🦊'.repeat(15), {})).ok).toBe(true)
    // The full-width letters become ASCII under NFKC: the same password however typed.
    expect((await policy.check('ｐａｓｓｗｏｒｄ１２３４５６７', {})).reasons).toEqual([])
    expect((await policy.check('x'.repeat(129), {})).reasons).toEqual(['tooLong'])
    expect((await policy.check('x'.repeat(128), {})).ok).toBe(true)
  })

  it('has no composition rules: lower-case words alone pass', async () => {
    expect(await policy.check('correct horse battery staple', {})).toEqual({ ok: true, reasons: [] })
  })

  it('refuses the common passwords of a list of more than 10,000, whatever their case', async () => {
    expect(commonPasswordCount()).toBeGreaterThan(10_000)
    const short = passwordPolicy({ ...LOCAL, minLength: 15 })
    expect((await short.check('password', {})).reasons).toEqual(['tooShort', 'common'])
    expect((await short.check('PassWord', {})).reasons).toContain('common')
  })

  it('refuses a password containing the identifier, an address’s local part, or the app’s name', async () => {
    expect(
      (await policy.check('my-carol.smith-forever-2024', { identifier: 'carol.smith@example.com' })).reasons,
    ).toEqual(['containsIdentifier'])
    expect(
      (await policy.check('CAROL.SMITH@EXAMPLE.COM!!', { identifier: 'carol.smith@example.com' })).reasons,
    ).toEqual(['containsIdentifier'])
    expect((await policy.check('i love the acme portal so much', {})).reasons).toEqual(['containsAppName'])
    // Parts shorter than 4 characters would refuse half the dictionary: they are not checked.
    expect((await policy.check('bob is a builder of things', { identifier: 'bob@example.com' })).ok).toBe(true)
  })

  it('names every failed rule at once', async () => {
    const all = await policy.check('acme portal', { identifier: 'acme portal' })
    expect(all.reasons).toEqual(['tooShort', 'containsIdentifier', 'containsAppName'])
  })
})

describe('the breached-password check against a local range server', () => {
  let range: RangeServer
  const BREACHED = 'a password that leaked somewhere'
  beforeEach(async () => {
    range = await startRangeServer([BREACHED])
  })
  afterEach(() => range.close())
  const options = () => resolveBreached({ url: range.url, timeout: 500 }, 'breached')

  it('finds a breached password, passes another, and sends only the 5-digit prefix with padding asked', async () => {
    expect(await isBreached(options(), BREACHED)).toBe(true)
    expect(await isBreached(options(), 'a password nobody has ever used')).toBe(false)
    expect(range.requests).toHaveLength(2)
    for (const { path, headers } of range.requests) {
      expect(path).toMatch(/^\/range\/[0-9A-F]{5}$/)
      expect(headers['add-padding']).toBe('true')
      expect(JSON.stringify(headers)).not.toContain('leaked')
    }
  })

  it('down, slow, endless or garbage: unavailable (null) within the deadline, never an exception', async () => {
    for (const mode of ['down', 'slow', 'dribble', 'garbage'] as const) {
      range.mode = mode
      const started = performance.now()
      expect(await isBreached(options(), BREACHED)).toBeNull()
      expect(performance.now() - started).toBeLessThan(2000)
    }
  })

  it('the policy allows (and logs) or refuses (unverifiable) when the service does not answer', async () => {
    range.mode = 'down'
    const logs: string[] = []
    const allow = passwordPolicy({ ...LOCAL, breached: options() }, (_level, code) => logs.push(code))
    expect(await allow.check('a fine long password here', {})).toEqual({ ok: true, reasons: [] })
    expect(logs).toEqual(['password.breach_check_unavailable'])
    const refuse = passwordPolicy({
      ...LOCAL,
      breached: resolveBreached({ url: range.url, timeout: 500, onUnavailable: 'refuse' }, 'breached'),
    })
    expect(await refuse.check('a fine long password here', {})).toEqual({ ok: false, reasons: ['unverifiable'] })
    range.mode = 'up'
    expect(await refuse.check(BREACHED, {})).toEqual({ ok: false, reasons: ['breached'] })
  })

  it('checks its options at auth(): the option named with the fix', () => {
    expect(() => resolveBreached({ url: 'ftp://x' }, 'providers["credentials"].breached')).toThrow(ConfigurationError)
    expect(() => resolveBreached({ url: 'ftp://x' }, 'providers["credentials"].breached')).toThrow(
      /providers\["credentials"\]\.breached\.url/,
    )
    expect(() => resolveBreached({ timeout: 0 }, 'b')).toThrow(/b\.timeout/)
    expect(() => resolveBreached({ onUnavailable: 'maybe' }, 'b')).toThrow(/b\.onUnavailable/)
    expect(() => resolveBreached({ urll: 'x' }, 'b')).toThrow(/urll/)
  })
})
