/**
 * Other spellings of the same bytes: base64url text that Node's lenient decoder reads as the bytes a
 * canonical text spells (the spare low bits of its last character set, or one character past the
 * last group), made here without lib/ and checked against Node's decoder, for the specs that prove
 * such twins are refused.
 */
const ALPHABET = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_']

/** Every other spelling of canonical `text` that Node decodes to the same bytes (none for ''). */
export function respellings(text: string): string[] {
  if (text === '') return []
  const bytes = Buffer.from(text, 'base64url')
  const candidates =
    text.length % 4 === 0
      ? ALPHABET.map((char) => text + char)
      : ALPHABET.map((char) => text.slice(0, -1) + char).filter((twin) => twin !== text)
  const twins = candidates.filter((twin) => Buffer.from(twin, 'base64url').equals(bytes))
  // 64 extra characters, or 15 and 3 spare-bit patterns: a twin that was not one would prove nothing.
  if (twins.length !== { 0: 64, 2: 15, 3: 3 }[text.length % 4]) throw new Error(`not canonical base64url: ${text}`)
  return twins
}

/** True when `text` is non-empty canonical base64url: what decoding and encoding again gives back. */
export function isRespellable(text: string): boolean {
  return text !== '' && Buffer.from(text, 'base64url').toString('base64url') === text
}

/** One other spelling of canonical `text`, picked by `pick` (any integer). */
export function respelling(text: string, pick: number): string {
  const twins = respellings(text)
  return twins[Math.abs(pick) % twins.length]!
}

/**
 * The spellings of a compact JWE `<header>..<iv>.<ciphertext>.<tag>` whose decoded parts are the same,
 * itself first: every combination of the spellings of its IV, ciphertext and tag (the header is the
 * AAD, so its text is checked as is).
 */
export function jweSpellings(token: string): string[] {
  const [header, , iv, ciphertext, tag] = token.split('.') as [string, string, string, string, string]
  const spellings = (part: string) => [part, ...respellings(part)]
  const all: string[] = []
  for (const i of spellings(iv))
    for (const c of spellings(ciphertext)) for (const t of spellings(tag)) all.push(`${header}..${i}.${c}.${t}`)
  return all
}
