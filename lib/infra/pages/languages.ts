import { ConfigurationError } from '../errors'
import { checkKeys, describe } from '../util/options'
import { isRecord } from '../util/object'
import { en, type Messages } from './messages'

/** An app's texts for one language: any part of `Messages`; what it leaves out stays English. */
export type Translation = { [K in keyof Messages]?: Messages[K] extends string ? string : DeepPartial<Messages[K]> }
type DeepPartial<T> = { [K in keyof T]?: T[K] extends string ? string : DeepPartial<T[K]> }

/** The texts of the built-in pages and the sign-in mail, per request. */
export interface Languages {
  /** The texts for a request's `Accept-Language` header (or the one fixed language). */
  pick(acceptLanguage: string | undefined): Messages
  /** True when `pick` reads the header: the pages then vary by it. */
  readonly negotiated: boolean
}

/** BCP 47 tags as apps write them: `de`, `pt-BR`, `zh-Hant-TW`. */
const TAG = /^[a-z]{2,3}(?:-[a-z\d]{2,8})*$/i
/** Enough of an Accept-Language header for any real browser; the rest is not read. */
const MAX_HEADER = 512
const MAX_RANGES = 16

/**
 * `languages` (translations by tag, merged over English) and `language` (one fixed tag; without
 * it, each request's Accept-Language chooses among English and the translations). Checked at
 * `auth()`: unknown keys, non-string texts and tags that are not tags fail fast.
 */
export function resolveLanguages(languages: unknown, language: unknown): Languages {
  const table = new Map<string, Messages>([['en', en]])
  if (languages !== undefined) {
    if (!isRecord(languages)) {
      throw new ConfigurationError(
        `\`languages\` must be an object of translations by language tag, such as { de }; got ${describe(languages)}`,
      )
    }
    for (const [tag, translation] of Object.entries(languages)) {
      if (!TAG.test(tag)) {
        throw new ConfigurationError(
          `\`languages\` keys must be language tags such as 'de' or 'pt-BR'; got ${describe(tag)}`,
        )
      }
      table.set(tag.toLowerCase(), { ...merge(en, translation, `languages.${tag}`), lang: tag })
    }
  }
  if (language !== undefined) {
    const fixed = typeof language === 'string' ? table.get(language.toLowerCase()) : undefined
    if (!fixed) {
      throw new ConfigurationError(
        `\`language\` must be 'en' or a key of \`languages\` (${[...table.keys()].join(', ')}); got ${describe(language)}`,
      )
    }
    return Object.freeze({ pick: () => fixed, negotiated: false })
  }
  if (table.size === 1) return Object.freeze({ pick: () => table.get('en')!, negotiated: false })
  return Object.freeze({ pick: (header: string | undefined) => negotiate(table, header), negotiated: true })
}

/** `translation` over `base`, key by key, with the same shape: every leaf a string. */
function merge<T extends object>(base: T, translation: unknown, where: string): T {
  if (!isRecord(translation))
    throw new ConfigurationError(`\`${where}\` must be an object; got ${describe(translation)}`)
  checkKeys(translation, Object.keys(base), `${where}.`)
  const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  for (const [key, value] of Object.entries(translation)) {
    const own = (base as Record<string, unknown>)[key]
    if (value === undefined) continue
    if (typeof own === 'string') {
      if (typeof value !== 'string') {
        throw new ConfigurationError(`\`${where}.${key}\` must be a string; got ${describe(value)}`)
      }
      merged[key] = value
    } else merged[key] = merge(own as object, value, `${where}.${key}`)
  }
  return merged as T
}

/**
 * The best of `table` for an Accept-Language header: the highest `q` among the ranges it names,
 * a range matching a tag exactly or by its primary subtag (`de-CH` finds `de`); English when none
 * does. Linear in the header, which is read to MAX_HEADER characters and MAX_RANGES ranges.
 */
function negotiate(table: ReadonlyMap<string, Messages>, header: string | undefined): Messages {
  let best = table.get('en')!
  if (typeof header !== 'string') return best
  let bestQ = 0
  for (const range of header.slice(0, MAX_HEADER).split(',', MAX_RANGES)) {
    const [name = '', ...params] = range.split(';')
    const tag = name.trim().toLowerCase()
    const found = table.get(tag) ?? table.get(tag.split('-', 1)[0]!)
    if (!found) continue
    const q = quality(params)
    if (q > bestQ) {
      best = found
      bestQ = q
    }
  }
  return best
}

function quality(params: readonly string[]): number {
  for (const param of params) {
    const [key = '', value = ''] = param.split('=', 2)
    if (key.trim().toLowerCase() !== 'q') continue
    const q = Number(value.trim())
    return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0
  }
  return 1
}
