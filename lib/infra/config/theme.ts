import { ConfigurationError } from '../errors'
import { checkKeys, describe, optionalObject } from '../util/options'
import type { PageTheme } from '../pages/render'
import { themeStylesheet } from '../pages/theme'

/**
 * `theme`: NextAuth's option for the built-in pages, with its names and meanings. Checked at
 * `auth()`. The two colours reach the pages only through the stylesheet route, and the logo only as
 * an escaped `src`: so each is held to a grammar in which no CSS or HTML can be written, and a value
 * outside it fails start-up naming the option.
 */

/** `theme` as resolved: what the pages show, and the stylesheet that carries its colours. */
export type ResolvedTheme = PageTheme & {
  readonly brandColor?: string
  readonly buttonText?: string
}

const KEYS = ['colorScheme', 'brandColor', 'logo', 'buttonText'] as const
const SCHEMES = ['auto', 'light', 'dark'] as const

export function resolveTheme(value: unknown): ResolvedTheme {
  const theme = optionalObject(value, 'theme')
  checkKeys(theme, KEYS, 'theme.')
  const colorScheme = resolveScheme(theme.colorScheme)
  const brandColor = cssColor(theme.brandColor, 'theme.brandColor')
  const buttonText = cssColor(theme.buttonText, 'theme.buttonText')
  const logo = resolveLogo(theme.logo)
  return Object.freeze({
    colorScheme,
    ...(brandColor === undefined ? {} : { brandColor }),
    ...(buttonText === undefined ? {} : { buttonText }),
    ...logo,
    stylesheet: themeStylesheet({ brandColor, buttonText }),
  })
}

function resolveScheme(value: unknown): PageTheme['colorScheme'] {
  if (value === undefined) return 'auto'
  if (SCHEMES.includes(value as PageTheme['colorScheme'])) return value as PageTheme['colorScheme']
  throw new ConfigurationError(
    `\`theme.colorScheme\` must be 'auto' (the reader's setting), 'light' or 'dark'; got ${describe(value)}`,
  )
}

// The colour grammars accepted, none of which can hold `;`, `{`, `}`, quotes, `\`, `<` or a nested
// function (`url(`, `var(`): a value can only ever be one colour.
const HEX = /^#(?:[\da-f]{3,4}|[\da-f]{6}|[\da-f]{8})$/i
const FUNCTION = /^(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\([\d\s.,%/+a-z-]*\)$/i
const NAMED = new Set(
  (
    'aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown ' +
    'burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan ' +
    'darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid ' +
    'darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet ' +
    'deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ' +
    'ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki ' +
    'lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow ' +
    'lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray ' +
    'lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine ' +
    'mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise ' +
    'mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab ' +
    'orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru ' +
    'pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown ' +
    'seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan ' +
    'teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen'
  ).split(' '),
)

/** A CSS colour: `#hex`, `rgb()`/`hsl()`/`hwb()`/`lab()`/`lch()`/`oklab()`/`oklch()`, or a named colour. */
export function isCssColor(value: string): boolean {
  if (value.length > 64) return false
  return HEX.test(value) || FUNCTION.test(value) || NAMED.has(value.toLowerCase())
}

function cssColor(value: unknown, option: string): string | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value === 'string' && isCssColor(value.trim())) return value.trim()
  throw new ConfigurationError(
    `\`${option}\` must be a CSS colour such as '#346df1', 'rgb(52 109 241)' or 'rebeccapurple'; got ${describe(value)}`,
  )
}

// Whitespace, control characters, quotes, angle brackets and backslashes have no place in a logo's address.
// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
const URL_CHARACTERS = /^[^\s"'<>\\`\u0000-\u001f\u007f]+$/
const SCHEME = /^[a-z][a-z\d+.-]*:/i
// The origin goes into the CSP as a source: a host of letters, digits, dots and hyphens (IDNs come
// as punycode), or an IPv6 literal, and a port. The URL parser keeps `;` and `,` in a host, which a
// source list would split into a directive of its own.
const CSP_ORIGIN = /^https:\/\/(?:[a-z\d-]+(?:\.[a-z\d-]+)*|\[[\da-f:.]+\])(?::\d{1,5})?$/

/** The logo's address and the CSP `img-src` source that lets the pages load it. */
function resolveLogo(value: unknown): Pick<PageTheme, 'logo' | 'logoSource'> {
  if (value === undefined || value === '') return {}
  const fix = "an https URL such as 'https://example.com/logo.svg', or a path on this site such as '/logo.svg'"
  if (typeof value !== 'string' || value.length > 2048 || !URL_CHARACTERS.test(value) || value.startsWith('//'))
    throw new ConfigurationError(`\`theme.logo\` must be ${fix}; got ${describe(value)}`)
  if (!SCHEME.test(value)) return { logo: value, logoSource: "'self'" }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigurationError(`\`theme.logo\` must be ${fix}; got ${describe(value)}`)
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || !CSP_ORIGIN.test(url.origin))
    throw new ConfigurationError(`\`theme.logo\` must be ${fix}; got ${describe(value)}`)
  return { logo: url.href, logoSource: url.origin }
}
