import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * The layout of lib/ (docs/architecture.md): a request travels top to bottom, and imports point
 * down this list, never up, with no cycles. Type-only imports are free: they vanish at run time.
 * A folder or file of lib/ that is not listed here fails this spec until it is placed.
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['index'],
  ['auth'],
  ['helpers'],
  ['router'],
  ['routes'],
  ['context', 'services'],
  ['sign-in'],
  ['providers'],
  ['session'],
  ['csrf'],
  ['http'],
  ['pages'],
  ['config'],
  ['urls'],
  ['store'],
  ['crypto'],
  ['errors', 'logger'],
  ['util'],
]
const RANK = new Map(LAYERS.flatMap((names, index) => names.map((name) => [name, LAYERS.length - index] as const)))

const LIB = path.resolve(__dirname, '../lib')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : []
  })
}

/** The top-level entry of lib/ a file belongs to: its folder, or its own name for a file at the top. */
function entryOf(file: string): string {
  const [first] = path.relative(LIB, file).split(path.sep)
  return first!.replace(/\.ts$/, '')
}

/** The lib/ files a file imports at run time (not `import type`, not `export type`). */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const found: string[] = []
  // One statement at a time (a statement's text holds no quote before its `from '…'`).
  for (const [, spec] of text.matchAll(/^(?:import|export) (?!type\b)[^'";]*from '(\.{1,2}\/[^']+)'/gm)) {
    const target = path.resolve(path.dirname(file), spec!)
    found.push(statSync(`${target}.ts`, { throwIfNoEntry: false }) ? `${target}.ts` : path.join(target, 'index.ts'))
  }
  return found
}

const files = sourceFiles(LIB)
const graph = new Map(files.map((file) => [file, valueImports(file)]))

describe('the layout of lib/', () => {
  it('places every folder and top-level file in a layer', () => {
    const unplaced = [...new Set(files.map(entryOf))].filter((entry) => !RANK.has(entry))
    expect(unplaced).toEqual([])
  })

  it('imports only downwards (or within the same folder)', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => entryOf(target) !== entryOf(file) && RANK.get(entryOf(target))! >= RANK.get(entryOf(file))!)
        .map((target) => `${path.relative(LIB, file)} -> ${path.relative(LIB, target)}`),
    )
    expect(upward).toEqual([])
  })

  it('has no import cycles', () => {
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(LIB, f)).join(' -> '))
        return
      }
      state.set(file, 'open')
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file])
      state.set(file, 'done')
    }
    for (const file of files) visit(file, [])
    expect(cycles).toEqual([])
  })
})
