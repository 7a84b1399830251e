import { STYLESHEET, type Asset, type PageTheme } from './render'

/** The app's colours (`theme.brandColor`, `theme.buttonText`), checked at `auth()` (lib/infra/config/theme.ts). */
export interface ThemeColors {
  readonly brandColor?: string | undefined
  readonly buttonText?: string | undefined
}

/** The pages' stylesheet with the app's colours after it, built once at `auth()`. */
export function themeStylesheet({ brandColor, buttonText }: ThemeColors): Asset {
  if (brandColor === undefined && buttonText === undefined) return STYLESHEET
  // Each value matched a colour grammar at auth() (lib/infra/config/theme.ts): one token, no `;` or `}`.
  const rules = [
    ':root {',
    ...(brandColor === undefined ? [] : [`  --brand: ${brandColor};`, '  --brand-hover-filter: brightness(0.9);']),
    ...(buttonText === undefined ? [] : [`  --brand-text: ${buttonText};`]),
    '}',
    ...(brandColor === undefined ? [] : ['.card { border-top: 4px solid var(--brand); }']),
  ]
  const tail = `\n/* theme: brandColor and buttonText */\n${rules.join('\n')}\n`
  const body = Buffer.concat([STYLESHEET.body, Buffer.from(tail, 'utf8')])
  // The ETag changes with the colours too, so a browser never keeps another theme's stylesheet.
  return Object.freeze({ body, etag: `${STYLESHEET.etag.slice(0, -1)}-${checksum(tail)}"` })
}

/** FNV-1a, 32 bits: a cache validator, not a security check. */
function checksum(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(36)
}

/** The pages without a `theme`: the reader's colour scheme, no logo, the stylesheet as shipped. */
export const DEFAULT_THEME: PageTheme = Object.freeze({ colorScheme: 'auto', stylesheet: STYLESHEET })
