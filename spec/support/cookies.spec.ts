import { splitSetCookie } from './cookie-jar'
import { expectCookie, expectNoCookies, setCookies } from './cookies'
import { fakeResponse } from './fake-response'

// The one Set-Cookie parser and the assertions built on it, as the route and unit specs use them.
describe('Set-Cookie lines', () => {
  it('splits a line into its cookie and its attributes, in order, names lower-cased', () => {
    expect(splitSetCookie('a=b=c; Path=/; HttpOnly; SameSite=Lax; max-age=0')).toEqual({
      name: 'a',
      value: 'b=c',
      attributes: [
        ['path', '/'],
        ['httponly', true],
        ['samesite', 'Lax'],
        ['max-age', '0'],
      ],
    })
    expect(splitSetCookie('no-equals-sign; Path=/')).toBeUndefined()
    expect(splitSetCookie('=value')).toBeUndefined()
  })

  it('asserts on what a fake response recorded, Set-Cookie always a list', () => {
    const { res, sent } = fakeResponse()
    expectNoCookies(sent)
    res.setHeader('Set-Cookie', 'one=1; Path=/; HttpOnly; SameSite=Lax')
    expect(sent.headers['set-cookie']).toEqual(['one=1; Path=/; HttpOnly; SameSite=Lax'])
    res.setHeader('Set-Cookie', [...(res.getHeader('Set-Cookie') as string[]), 'two=; Path=/; Max-Age=0'])
    expect(
      expectCookie(sent, 'one', { httpOnly: true, secure: false, sameSite: 'Lax', path: '/', cleared: false }).value,
    ).toBe('1')
    expectCookie(sent, 'two', { cleared: true })
    expect(() => expectCookie(sent, 'three')).toThrow('expected a Set-Cookie for three; got one, two')
  })

  it('fails on a line that holds no cookie rather than skip it', () => {
    expect(() => setCookies({ headers: { 'set-cookie': ['garbage'] } })).toThrow(/holds no cookie/)
  })
})
