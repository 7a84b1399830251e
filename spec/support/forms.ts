/**
 * The forms of an HTML page as a browser sees them: for specs that check what the built-in pages
 * post, and for playing the user at the test IdP's login page (./idp-login). Attribute values and
 * texts come back with their character references decoded.
 */

export interface Input {
  name: string
  /** Lower case; 'text' when absent. */
  type: string
  value: string
  /** Every attribute, by lower-case name ('' for one without a value): `autocomplete`, `minlength`… */
  attributes: Record<string, string>
}

export interface Form {
  id: string | undefined
  /** Lower case; 'get' when absent. */
  method: string
  /** As written in the page (decoded), relative or absolute. */
  action: string
  /** The named `<input>`s, in order. */
  inputs: Input[]
  /** Every named input's value, by name. */
  fields: Record<string, string>
  /** The hidden inputs' values, by name. */
  hidden: Record<string, string>
  /** The text of each submit button. */
  buttons: string[]
  /** The markup between `<form …>` and `</form>`. */
  html: string
}

// A tag's attributes: quoted values may hold `>`.
const FORM = /<form\b((?:[^>"']|"[^"]*"|'[^']*')*)>([\s\S]*?)<\/form>/gi
const INPUT = /<input\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi
const BUTTON = /<button\b((?:[^>"']|"[^"]*"|'[^']*')*)>([\s\S]*?)<\/button>/gi
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>=`]+)))?/g

/** Every form of the page, in order. */
export function forms(html: string): Form[] {
  return [...html.matchAll(FORM)].map(([, tag = '', inner = '']) => {
    const form = attributes(tag)
    const inputs = [...inner.matchAll(INPUT)]
      .map(([, input = '']) => attributes(input))
      .filter((input) => input.name !== undefined)
      .map((input) => ({
        name: input.name!,
        type: (input.type ?? 'text').toLowerCase(),
        value: input.value ?? '',
        attributes: { ...input } as Record<string, string>,
      }))
    const buttons = [...inner.matchAll(BUTTON)]
      .filter(([, button = '']) => (attributes(button).type ?? 'submit').toLowerCase() === 'submit')
      .map(([, , text = '']) =>
        decodeEntities(text.replace(/<[^<>]*>/g, ''))
          .replace(/\s+/g, ' ')
          .trim(),
      )
    return {
      id: form.id,
      method: (form.method ?? 'get').toLowerCase(),
      action: form.action ?? '',
      inputs,
      fields: Object.fromEntries(inputs.map((input) => [input.name, input.value])),
      hidden: Object.fromEntries(
        inputs.filter((input) => input.type === 'hidden').map((input) => [input.name, input.value]),
      ),
      buttons,
      html: inner,
    }
  })
}

/** The first form with this id, or posting to this action. */
export function findForm(html: string, where: { id: string } | { action: string }): Form | undefined {
  return forms(html).find((form) => ('id' in where ? form.id === where.id : form.action === where.action))
}

/** Decodes HTML character references: numeric ones and &amp; &lt; &gt; &quot; &apos; (others are left as they are). */
export function decodeEntities(text: string): string {
  return text.replace(
    /&(?:#(\d+)|#x([\da-f]+)|([a-z]+));/gi,
    (reference: string, decimal?: string, hex?: string, name?: string) => {
      if (decimal !== undefined) return String.fromCodePoint(Number(decimal))
      if (hex !== undefined) return String.fromCodePoint(parseInt(hex, 16))
      return NAMED.get(name!) ?? reference
    },
  )
}

const NAMED = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
])

/** A tag's attributes by lower-case name, values decoded; '' for one without a value. */
function attributes(tag: string): Record<string, string | undefined> {
  const found = Object.create(null) as Record<string, string>
  for (const [, name = '', double, single, bare] of tag.matchAll(ATTRIBUTE)) {
    const key = name.toLowerCase()
    if (!(key in found)) found[key] = decodeEntities(double ?? single ?? bare ?? '')
  }
  return found
}
