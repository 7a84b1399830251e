import { resolveOptions as resolveConfig } from '../../lib/auth'
import { BASE, SECRET } from '../support/app'
import { configError } from '../support/config-error'

/**
 * An app moved from NextAuth keeps its variables: the error for a missing secret or URL names ours
 * and says that theirs is not read, without showing their values.
 */
describe("NextAuth's own variables", () => {
  it.each(['NEXTAUTH_SECRET', 'AUTH_SECRET'])(
    '%s alone: the error names SERVICE_AUTH_SECRET and says it is not read',
    (name) => {
      const message = configError(() => resolveConfig({ url: BASE, logger: false }, { [name]: SECRET }))
      expect(message).toMatch(/SERVICE_AUTH_SECRET/)
      expect(message).toContain(`${name} is NextAuth's and not read here`)
      expect(message).not.toContain(SECRET)
    },
  )

  it.each(['NEXTAUTH_URL', 'AUTH_URL'])(
    '%s alone: the error names SERVICE_AUTH_URL and says it is not read',
    (name) => {
      const message = configError(() => resolveConfig({ secret: SECRET, logger: false }, { [name]: BASE }))
      expect(message).toMatch(/SERVICE_AUTH_URL/)
      expect(message).toContain(`${name} is NextAuth's and not read here`)
      expect(message).not.toContain(BASE)
    },
  )

  it('names both when both are set, and nothing of theirs when none is', () => {
    const both = configError(() =>
      resolveConfig({ url: BASE, logger: false }, { NEXTAUTH_SECRET: 'x', AUTH_SECRET: 'y' }),
    )
    expect(both).toContain("NEXTAUTH_SECRET and AUTH_SECRET are NextAuth's and not read here")
    expect(configError(() => resolveConfig({ url: BASE, logger: false }, {}))).not.toMatch(/NextAuth/)
  })
})
