/**
 * passkey() and auth() with it: configuration mistakes fail at start-up naming the option and the
 * fix, weakenings and development-only storage are said at start-up, and the defaults are the
 * strict ones (user verification required, no passkey-first sign-up).
 */
import { auth, email, passkey, type LogEntry } from '../../../lib'
import { memoryPasskeyStore } from '../../../lib/features/passkey/store'
import { configError } from '../../support/config-error'

const SECRET = 'a-test-secret-that-is-long-enough-1234567890'
const URL = 'http://localhost:3000/api/auth'

function warnings(options: Parameters<typeof auth>[0]): string[] {
  const logs: LogEntry[] = []
  auth({ url: URL, secret: SECRET, logger: (entry) => logs.push(entry), ...options })
  return logs.filter((entry) => entry.event === 'config.warning').map((entry) => entry.message)
}

describe('passkey()', () => {
  it('is strict by default', () => {
    expect(passkey()).toMatchObject({
      id: 'passkey',
      name: 'Passkey',
      type: 'webauthn',
      userVerification: 'required',
      signUp: false,
      challengeMaxAge: 300,
      registrationMaxAge: 300,
    })
  })

  it('names the option and the fix for each mistake', () => {
    expect(configError(() => passkey({ signUp: 'yes' } as never))).toBe(
      '`providers["passkey"].signUp` must be true or false',
    )
    expect(configError(() => passkey({ challengeMaxAge: 3600 }))).toMatch(
      /`providers\["passkey"\].challengeMaxAge` must be a whole number of seconds from 30 to 600; got 3600/,
    )
    expect(configError(() => passkey({ registrationMaxAge: 86_400 }))).toBe(
      '`providers["passkey"].registrationMaxAge` must be a whole number of seconds from 30 to 3600; got 86400',
    )
    expect(configError(() => auth({ url: URL, secret: SECRET, providers: [passkey({ registrationMaxAge: 0 })] }))).toBe(
      '`providers["passkey"].registrationMaxAge` must be a whole number of seconds from 30 to 3600; got 0',
    )
    expect(configError(() => passkey({ store: {} as never }))).toMatch(
      /`providers\["passkey"\].store` must be a PasskeyStore: an object with create\(\), get\(\)/,
    )
    expect(configError(() => passkey({ userVerification: 'preferred' } as never))).toMatch(/userVerification/)
  })

  it('needs `url`: the relying party ID of every passkey comes from it', () => {
    expect(configError(() => auth({ secret: SECRET, trustHost: true, providers: [passkey()] }))).toMatch(
      /`url` is required with passkey\(\): the relying party ID of every passkey comes from it/,
    )
  })

  it('needs `url` on a host name browsers take as a relying party ID, in a secure context', () => {
    for (const url of ['http://127.0.0.1:3000/api/auth', 'https://[::1]/api/auth', 'https://10.0.0.7/api/auth']) {
      expect(configError(() => auth({ url, secret: SECRET, providers: [passkey()] }))).toMatch(
        /^passkey\(\): `url` names an IP address, which browsers refuse as a relying party ID/,
      )
    }
    expect(
      configError(() => auth({ url: 'http://app.example/api/auth', secret: SECRET, providers: [passkey()] })),
    ).toMatch(
      /^passkey\(\): `url` is http on app\.example: browsers offer passkeys only on https \(or http on localhost\)/,
    )
    for (const url of [
      'http://localhost:3000/api/auth',
      'http://app.localhost/api/auth',
      'https://app.example/api/auth',
    ])
      expect(() => auth({ url, secret: SECRET, logger: false, providers: [passkey()] })).not.toThrow()
  })

  it('takes one passkey provider', () => {
    expect(
      configError(() => auth({ url: URL, secret: SECRET, providers: [passkey(), passkey({ id: 'other' })] })),
    ).toBe('`providers[1]` is a second passkey() provider; configure one')
  })

  it('warns at start-up about memory storage and a weakened user verification', () => {
    expect(warnings({ providers: [passkey()] })).toEqual([
      expect.stringMatching(/^passkeys are kept in this process's memory: .*development only/),
      expect.stringMatching(/^passkey challenges are kept in this process's memory/),
    ])
    expect(warnings({ providers: [passkey({ store: memoryPasskeyStore() })] })).toHaveLength(1)
    expect(
      warnings({
        providers: [
          email({ from: 'a@example.com', sendVerificationRequest: () => {} }),
          passkey({ dangerouslyAllowWithoutUserVerification: true, store: memoryPasskeyStore() }),
        ],
      }),
    ).toContainEqual(expect.stringMatching(/^`dangerouslyAllowWithoutUserVerification` is set/))
  })
})
