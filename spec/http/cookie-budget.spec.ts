import { COOKIE_BUDGET, ONE_FLOW_SHARE, cookiesAfter, headerChars } from '../../lib/infra/http/cookie-budget'
import { OVER_BUDGET, writeChunked } from '../../lib/infra/http/chunked-cookie'
import { setCookie, clearCookie } from '../../lib/infra/http/cookies'
import { fakeResponse } from '../support/fake-response'

/**
 * The Cookie budget as the session cookie's writer keeps it: the cookies a browser holds after a
 * response are the request's with the response's Set-Cookie lines applied; when the session cookie
 * written would leave less than one flow's share of the budget, its logout cookie gives way (and
 * says so), and never otherwise.
 */

const def = { name: 'auth.session-token', attrs: '; Path=/; HttpOnly; SameSite=Lax' }
const logout = 'auth.session-token-logout'

it('applies the Set-Cookie lines of the response to the request cookies', () => {
  const { res } = fakeResponse()
  setCookie(res, def, 'new', 60, 'a')
  clearCookie(res, def, 'b')
  const after = cookiesAfter({ a: 'old', b: 'gone', c: 'kept' }, res)
  expect([...after]).toEqual([
    ['a', 'new'],
    ['c', 'kept'],
  ])
  expect(headerChars(after)).toBe('a=new; c=kept; '.length)
})

it('replaces the logout cookie when the session cookie would leave less than a flow share', () => {
  const { res, sent } = fakeResponse()
  const cookies = { [logout]: 'h'.repeat(3500), app: 'a'.repeat(COOKIE_BUDGET - ONE_FLOW_SHARE - 3500 - 9000) }
  writeChunked(res, cookies, def, 's'.repeat(9000), 60)
  expect(cookiesAfter(cookies, res).get(logout)).toBe(OVER_BUDGET)
  expect(headerChars(cookiesAfter(cookies, res))).toBeLessThanOrEqual(COOKIE_BUDGET - ONE_FLOW_SHARE)
  expect((sent.headers['set-cookie'] as string[]).at(-1)).toMatch(/^auth\.session-token-logout=over-budget; Path=\//)
})

it('leaves the logout cookie alone when everything fits', () => {
  const { res } = fakeResponse()
  const cookies = { [logout]: 'h'.repeat(3500) }
  writeChunked(res, cookies, def, 's'.repeat(7000), 60)
  expect(cookiesAfter(cookies, res).get(logout)).toBe('h'.repeat(3500))
})
