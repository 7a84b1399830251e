import { keyRing } from '../../lib/infra/crypto/keys'
import { createCsrf } from '../../lib/infra/csrf'

// A CSRF cookie signed by a secret rotated out (second in `secrets`) is never remembered as valid
// under the current secret: it stays "stale" (re-signed on GET /csrf) on every read, and a cookie
// signed by a secret no longer in the ring is refused, even after the same token was re-signed.
const OLD = 'an-old-secret-that-is-long-enough-1234567890'
const NEW = 'a-new-secret-that-is-long-enough-12345678901'

it('keeps a cookie of a rotated-out secret stale on every read, and refuses it once that secret is dropped', () => {
  const before = createCsrf(keyRing([OLD], 'csrf'))
  const old = before.issue()
  const rotated = createCsrf(keyRing([NEW, OLD], 'csrf'))
  for (let i = 0; i < 3; i++) {
    expect(rotated.inspect(old.cookieValue)).toEqual({ token: old.token, stale: true })
    expect(rotated.verify(old.cookieValue, old.token)).toBe(true)
  }
  const resigned = rotated.resign(old.token)
  expect(rotated.inspect(resigned.cookieValue)).toEqual({ token: old.token, stale: false })
  expect(rotated.inspect(resigned.cookieValue)).toEqual({ token: old.token, stale: false })
  expect(rotated.inspect(old.cookieValue)).toEqual({ token: old.token, stale: true })
  const onlyNew = createCsrf(keyRing([NEW], 'csrf'))
  expect(onlyNew.inspect(resigned.cookieValue)).toEqual({ token: old.token, stale: false })
  expect(onlyNew.inspect(old.cookieValue)).toBeNull()
  expect(onlyNew.verify(old.cookieValue, old.token)).toBe(false)
  // A different token with the valid cookie's MAC, and a cookie with a second '|'.
  const [token, tag] = resigned.cookieValue.split('|') as [string, string]
  expect(onlyNew.inspect(`${token}x|${tag}`)).toBeNull()
  expect(onlyNew.inspect(`${resigned.cookieValue}|`)).toBeNull()
  expect(onlyNew.verify(resigned.cookieValue, `${token} `)).toBe(false)
})
