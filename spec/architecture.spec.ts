import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * The layout of lib/ (docs/architecture.md): a request travels top to bottom, and imports point
 * down this list, never up, with no cycles and no two folders that import each other. Type-only
 * imports follow the same rule (a type shared by two layers lives in the lower one), except the few
 * in UPWARD_TYPES. A folder or file of lib/ that is not listed here fails this spec until it is placed.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  // The package root and its `/testing` subpath (the store contract suites): two entries, apart.
  ['index', 'testing'],
  ['auth'],
  ['helpers'],
  ['router'],
  ['routes'],
  ['context', 'services'],
  ['sign-in'],
  // The provider tokens of sessions: captured at sign-in, refreshed for getAccessToken.
  ['tokens'],
  // The two kinds of provider never import each other; what they share lies below them.
  ['providers/oauth', 'providers/email', 'providers/passkey'],
  ['providers'],
  ['session'],
  ['csrf'],
  ['http'],
  ['config'],
  ['pages'],
  ['urls'],
  ['store'],
  ['crypto'],
  ['util'],
  ['errors', 'logger'],
]
const RANK = new Map(LAYERS.flatMap((names, index) => names.map((name) => [name, LAYERS.length - index] as const)))

/**
 * The type-only imports that may point up (or sideways), by the file that declares them and the
 * names: the request's context and the services auth() builds are what every handler and flow
 * step receives, and they are declared beside the router and auth() that build them.
 */
const UPWARD_TYPES: ReadonlyMap<string, readonly string[]> = new Map([
  ['context.ts', ['Context', 'Handler']],
  ['services.ts', ['Services']],
  // The options name the providers the app built with oidc(), oauth2(), email(): their public types.
  ['providers/types.ts', ['Provider', 'ProviderInfo']],
])

const LIB = path.resolve(__dirname, '../lib')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : []
  })
}

/** The entry of LAYERS a file belongs to: its folder (a provider kind's own folder), or its own name at the top. */
function entryOf(file: string): string {
  const [first, second] = path.relative(LIB, file).split(path.sep)
  if (first === 'providers' && second !== undefined && RANK.has(`providers/${second}`)) return `providers/${second}`
  return first!.replace(/\.ts$/, '')
}

interface Import {
  readonly target: string
  /** `import type`, `export type`, or every name marked `type`: gone at run time. */
  readonly typeOnly: boolean
  /** The names imported (empty for `*` or a side-effect import). */
  readonly names: readonly string[]
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
    const braces = open === -1 ? '' : clause.slice(open + 1, close)
    const parts = braces
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
    const names = parts.map((part) =>
      part
        .replace(/^type /, '')
        .split(' as ')[0]!
        .trim(),
    )
    const outside = (open === -1 ? clause : clause.slice(0, open) + clause.slice(close + 1)).replace(/^type\b/, '')
    const typeOnly =
      clause.startsWith('type ') ||
      (parts.length > 0 && outside.replace(/,/g, '').trim() === '' && parts.every((part) => part.startsWith('type ')))
    found.push({ target: resolveImport(file, spec!), typeOnly, names })
  }
  // Side-effect imports and dynamic imports run code: never type-only.
  for (const [, spec] of text.matchAll(/(?:^import\s+|\bimport\(\s*|\brequire\(\s*)'(\.{1,2}\/[^']+)'/gm)) {
    found.push({ target: resolveImport(file, spec!), typeOnly: false, names: [] })
  }
  return found
}

/** An upward type-only import UPWARD_TYPES lets through. */
function allowed(imported: Import): boolean {
  const names = UPWARD_TYPES.get(path.relative(LIB, imported.target))
  return imported.typeOnly && names !== undefined && imported.names.every((name) => names.includes(name))
}

const files = sourceFiles(LIB)
const graph = new Map(files.map((file) => [file, importsOf(file)]))
const rel = (file: string) => path.relative(LIB, file)

/** Entry to entries it imports, type-only imports included, the allowed upward ones left out. */
const entryGraph = new Map<string, Set<string>>()
for (const [file, imports] of graph) {
  for (const imported of imports) {
    if (allowed(imported) || entryOf(imported.target) === entryOf(file)) continue
    const targets = entryGraph.get(entryOf(file)) ?? new Set<string>()
    targets.add(entryOf(imported.target))
    entryGraph.set(entryOf(file), targets)
  }
}

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
  it('places every folder and top-level file in a layer', () => {
    const unplaced = [...new Set(files.map(entryOf))].filter((entry) => !RANK.has(entry))
    expect(unplaced).toEqual([])
  })

  it('imports only downwards (or within the same folder), type-only imports included', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter(
          ({ target }) => entryOf(target) !== entryOf(file) && RANK.get(entryOf(target))! >= RANK.get(entryOf(file))!,
        )
        .filter((imported) => !allowed(imported))
        .map(({ target, typeOnly }) => `${rel(file)} -> ${rel(target)}${typeOnly ? ' (type)' : ''}`),
    )
    expect(upward).toEqual([])
  })

  it('lets through only the listed upward type imports, and a value import of them never', () => {
    const mixed = [...graph].flatMap(([file, imports]) =>
      imports
        .filter(({ target }) => UPWARD_TYPES.has(rel(target)) && entryOf(target) !== entryOf(file))
        .filter(({ target }) => RANK.get(entryOf(target))! >= RANK.get(entryOf(file))!)
        .filter((imported) => !allowed(imported))
        .map(({ target, names }) => `${rel(file)} -> ${rel(target)} { ${names.join(', ')} }`),
    )
    expect(mixed).toEqual([])
  })

  it('has no two folders that import each other, and no cycle between folders', () => {
    const pairs = [...entryGraph].flatMap(([from, targets]) =>
      [...targets].filter((to) => from < to && entryGraph.get(to)?.has(from)).map((to) => `${from} <-> ${to}`),
    )
    expect(pairs).toEqual([])
    expect(cyclesOf(entryGraph.keys(), (entry) => entryGraph.get(entry) ?? [])).toEqual([])
  })

  it('keeps the OAuth and e-mail providers apart', () => {
    expect(entryGraph.get('providers/oauth')?.has('providers/email') ?? false).toBe(false)
    expect(entryGraph.get('providers/email')?.has('providers/oauth') ?? false).toBe(false)
  })

  it('has no import cycles between files at run time', () => {
    const valueEdges = (file: string) =>
      graph
        .get(file)!
        .filter((imported) => !imported.typeOnly)
        .map(({ target }) => target)
    expect(cyclesOf(files, valueEdges).map((cycle) => cycle.split(' -> ').map(rel).join(' -> '))).toEqual([])
  })
})
