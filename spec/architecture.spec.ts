import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * The layout of lib/ (docs/architecture.md). Three zones and the entry points above them:
 * - infra/: what any web service needs (http, crypto, csrf, urls, pages, config, stores, logger):
 *   it imports only infra/ and names no feature;
 * - core/: the pipeline (router, context, services, the core routes, sign-in completion, the flow
 *   state, sessions, the app-facing helpers) and the `Feature` contract: it imports only core/ and
 *   infra/, and names no feature;
 * - features/<name>/: everything one feature owns. A feature imports core/ and infra/, and another
 *   feature only when REQUIRES says so;
 * - the entry points: index.ts and testing/ (public), auth.ts (builds the service) and features.ts
 *   (the list of features); only they may import every zone;
 * - resource/ (`express-auth-service/resource`, for the APIs that accept access tokens): an entry
 *   point that imports infra/ alone, so that an API loads nothing of the service.
 * Type-only imports follow the same rules. Within a zone, no two folders import each other, and no
 * file imports another in a cycle, at run time or through its types (the contract's types apart:
 * the context, the services and the feature contract name each other by nature).
 */
const REQUIRES: ReadonlyMap<string, readonly string[]> = new Map([
  ['oidc-logout', ['oauth']],
  ['provider-tokens', ['oauth']],
  ['password', ['accounts', 'email']],
  ['mfa', ['accounts', 'passkey']],
])

const ENTRY_POINTS = new Set(['index.ts', 'testing', 'auth.ts', 'features.ts'])

/**
 * What names a feature in core/ or infra/ code: the features' own words, outside comments and
 * string literals (NextAuth's wire values: provider types, error codes, texts).
 */
const FEATURE_WORDS =
  /passkey|webauthn|oidc|backchannel|oauth|passport|magic ?link|verification|providerTokens|accessToken|logoutIndex/i

/**
 * NextAuth's own names, which the wire contract fixes (docs/routes.md, docs/errors.md): its error codes, the
 * signIn callback's `email.verificationRequest`, the `webauthnChallenge` cookie, the session's
 * `RefreshAccessTokenError`.
 */
const NEXTAUTH_NAMES =
  /\b(?:OAuth(?:Signin|Callback|CreateAccount|AccountNotLinked)|Verification|verificationRequest|webauthnChallenge|RefreshAccessTokenError)\b/g

/**
 * Where naming a feature is the point: the HKDF labels name every key the package derives, one list
 * keeping two labels from ever being the same; the built-in pages are NextAuth's, which show every
 * kind of provider (the sign-in page's buttons, e-mail field and passkey button, and their texts).
 */
const MAY_NAME_FEATURES = (file: string) => file === 'infra/crypto/keys.ts' || file.startsWith('infra/pages/')

const LIB = path.resolve(__dirname, '../lib')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : []
  })
}

const rel = (file: string) => path.relative(LIB, file).split(path.sep).join('/')

type Zone = 'entry' | 'resource' | 'core' | 'infra' | `features/${string}` | 'misplaced'

function zoneOf(file: string): Zone {
  const [first, second, third] = rel(file).split('/')
  if (ENTRY_POINTS.has(first!)) return 'entry'
  if (first === 'resource' && second !== undefined) return 'resource'
  if (first === 'core' || first === 'infra') return second === undefined ? 'misplaced' : first
  if (first === 'features' && third !== undefined) return `features/${second}`
  return 'misplaced'
}

/** A folder of a zone (`core/session`, `infra/http`, a feature), or a zone's own top-level file. */
function folderOf(file: string): string {
  const parts = rel(file).split('/')
  if (parts[0] === 'features') return parts.slice(0, 2).join('/')
  if (parts[0] === 'resource') return 'resource'
  return parts.length > 2 ? parts.slice(0, 2).join('/') : parts.join('/').replace(/\.ts$/, '')
}

interface Import {
  readonly target: string
  /** `import type`, `export type`, or every name marked `type`: gone at run time. */
  readonly typeOnly: boolean
}

function resolveImport(file: string, spec: string): string {
  const target = path.resolve(path.dirname(file), spec)
  return statSync(`${target}.ts`, { throwIfNoEntry: false }) ? `${target}.ts` : path.join(target, 'index.ts')
}

/** Every lib/ file a file imports or re-exports, type-only ones included. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8')
  const found: Import[] = []
  // One statement at a time (a statement's text holds no quote before its `from '…'`).
  for (const [, statement, spec] of text.matchAll(/^(?:import|export) ([^'";]*)from '(\.{1,2}\/[^']+)'/gm)) {
    const clause = statement!.trim()
    const open = clause.indexOf('{')
    const close = clause.indexOf('}', open)
    const parts = (open === -1 ? '' : clause.slice(open + 1, close))
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
    const outside = (open === -1 ? clause : clause.slice(0, open) + clause.slice(close + 1)).replace(/^type\b/, '')
    const typeOnly =
      clause.startsWith('type ') ||
      (parts.length > 0 && outside.replace(/,/g, '').trim() === '' && parts.every((part) => part.startsWith('type ')))
    found.push({ target: resolveImport(file, spec!), typeOnly })
  }
  // Side-effect imports and dynamic imports run code: never type-only.
  for (const [, spec] of text.matchAll(/(?:^import\s+|\bimport\(\s*|\brequire\(\s*)'(\.{1,2}\/[^']+)'/gm)) {
    found.push({ target: resolveImport(file, spec!), typeOnly: false })
  }
  return found
}

/** Why an import from `from` to `to` breaks the zones' rules, or null. */
function zoneViolation(from: Zone, to: Zone): string | null {
  if (from === to || from === 'entry' || to === 'infra') return null
  if (to === 'entry' || to === 'resource') return 'imports an entry point'
  if (from === 'resource') return 'resource/ imports above infra/'
  if (from === 'infra') return 'infra imports above itself'
  if (from === 'core') return 'core imports a feature'
  if (to === 'core') return null
  const feature = from.slice('features/'.length)
  const required = to.slice('features/'.length)
  return REQUIRES.get(feature)?.includes(required) ? null : `a feature imports ${to}, not in REQUIRES`
}

/**
 * The code of a file with its comments and string literals blanked (line breaks kept, so that line
 * numbers hold) and NextAuth's names taken out. A small scanner: quotes inside comments and `//`
 * inside strings are told apart. A template literal's `${…}` counts as string here.
 */
function codeOf(file: string): string {
  const text = readFileSync(file, 'utf8')
  let out = ''
  let state: 'code' | 'line' | 'block' | "'" | '"' | '`' = 'code'
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    const next = text[i + 1]
    if (state === 'code') {
      if (c === '/' && next === '/') state = 'line'
      else if (c === '/' && next === '*') state = 'block'
      else if (c === "'" || c === '"' || c === '`') state = c
      out += state === 'code' ? c : ' '
    } else if (state === 'line') {
      if (c === '\n') state = 'code'
      out += c === '\n' ? c : ' '
    } else if (state === 'block') {
      if (c === '*' && next === '/') {
        state = 'code'
        i++
      }
      out += c === '\n' ? c : ' '
    } else {
      if (c === '\\') i++
      else if (c === state) state = 'code'
      out += c === '\n' ? c : ' '
    }
  }
  return out.replace(NEXTAUTH_NAMES, '')
}

/**
 * The type-only imports the folder-cycle check leaves out: the request's context, the services and
 * the feature contract are what every handler and hook receives, declared beside what builds them.
 */
const CONTRACT_TYPES = new Set(['core/context.ts', 'core/services.ts', 'core/feature.ts'])

const files = sourceFiles(LIB)
const graph = new Map(files.map((file) => [file, importsOf(file)]))

function cyclesOf(nodes: Iterable<string>, edges: (node: string) => Iterable<string>): string[] {
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const visit = (node: string, trail: string[]) => {
    if (state.get(node) === 'done') return
    if (state.get(node) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '))
      return
    }
    state.set(node, 'open')
    for (const next of edges(node)) visit(next, [...trail, node])
    state.set(node, 'done')
  }
  for (const node of nodes) visit(node, [])
  return cycles
}

describe('the layout of lib/', () => {
  it('places every file in core/, infra/, a feature folder, or among the entry points', () => {
    expect(files.filter((file) => zoneOf(file) === 'misplaced').map(rel)).toEqual([])
  })

  it('imports by the zones: infra alone, core on infra, a feature on core, infra and what it requires, resource on infra', () => {
    const broken = [...graph].flatMap(([file, imports]) =>
      imports.flatMap(({ target, typeOnly }) => {
        const why = zoneViolation(zoneOf(file), zoneOf(target))
        return why === null ? [] : [`${rel(file)} -> ${rel(target)}${typeOnly ? ' (type)' : ''}: ${why}`]
      }),
    )
    expect(broken).toEqual([])
  })

  it('names no feature in core/ or infra/ code', () => {
    const naming = files
      .filter((file) => ['core', 'infra'].includes(zoneOf(file)) && !MAY_NAME_FEATURES(rel(file)))
      .flatMap((file) =>
        codeOf(file)
          .split('\n')
          .flatMap((line, index) => (FEATURE_WORDS.test(line) ? [`${rel(file)}:${index + 1}: ${line.trim()}`] : [])),
      )
    expect(naming).toEqual([])
  })

  it('has no two folders that import each other, and no cycle between folders', () => {
    const edges = new Map<string, Set<string>>()
    for (const [file, imports] of graph)
      for (const { target, typeOnly } of imports) {
        if (folderOf(target) === folderOf(file) || (typeOnly && CONTRACT_TYPES.has(rel(target)))) continue
        const targets = edges.get(folderOf(file)) ?? new Set<string>()
        targets.add(folderOf(target))
        edges.set(folderOf(file), targets)
      }
    expect(cyclesOf(edges.keys(), (folder) => edges.get(folder) ?? [])).toEqual([])
  })

  it('has no import cycles between files at run time', () => {
    const valueEdges = (file: string) =>
      graph
        .get(file)!
        .filter((imported) => !imported.typeOnly)
        .map(({ target }) => target)
    expect(cyclesOf(files, valueEdges).map((cycle) => cycle.split(' -> ').map(rel).join(' -> '))).toEqual([])
  })

  it('has no import cycles between files through their types either (but the contract types)', () => {
    const allEdges = (file: string) =>
      graph
        .get(file)!
        .filter(({ target, typeOnly }) => !(typeOnly && CONTRACT_TYPES.has(rel(target))))
        .map(({ target }) => target)
    expect(cyclesOf(files, allEdges).map((cycle) => cycle.split(' -> ').map(rel).join(' -> '))).toEqual([])
  })
})
