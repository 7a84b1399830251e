import { decodeEntities, findForm, forms } from './forms'

// The form reader the page specs and the IdP login rely on: a reader that found nothing would let
// their assertions pass on an empty list, so it is held to what a browser reads.
describe('forms', () => {
  const page = `
    <form id="login-form" method="POST" action="/interaction/a&amp;b/login">
      <label>User <input name="login" value="al&#34;ice" autocomplete="username" required autofocus></label>
      <input type="hidden" name="csrfToken" value='x>y'>
      <input type="checkbox" checked>
      <button type="submit">Sign <b>in</b></button>
      <button type="button">Help</button>
    </form>
    <form id="abort-form" action="/abort"><button class="secondary">Cancel</button></form>`

  it('reads each form: id, method, decoded action, named inputs, hidden ones, submit buttons', () => {
    expect(forms(page)).toMatchObject([
      {
        id: 'login-form',
        method: 'post',
        action: '/interaction/a&b/login',
        inputs: [
          { name: 'login', type: 'text', value: 'al"ice' },
          { name: 'csrfToken', type: 'hidden', value: 'x>y' },
        ],
        fields: { login: 'al"ice', csrfToken: 'x>y' },
        hidden: { csrfToken: 'x>y' },
        buttons: ['Sign in'],
      },
      { id: 'abort-form', method: 'get', action: '/abort', inputs: [], buttons: ['Cancel'] },
    ])
  })

  it('finds a form by id or by action', () => {
    expect(findForm(page, { id: 'abort-form' })?.action).toBe('/abort')
    expect(findForm(page, { action: '/interaction/a&b/login' })?.id).toBe('login-form')
    expect(findForm(page, { id: 'nope' })).toBeUndefined()
  })

  it('decodes numeric and the usual named references, and leaves others alone', () => {
    expect(decodeEntities('&#60;&#x3e;&amp;&quot;&apos;&lt;&gt;&amp;amp;&nbsp;&constructor;')).toBe(
      '<>&"\'<>&amp;&nbsp;&constructor;',
    )
  })
})
