import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * Passport's, passport-oauth2's and node-oauth's internals (their underscore members) are read and
 * written in one file, lib/features/oauth/passport/internals.ts, where each read says which version
 * it relies on: no other file of lib/ names them, so a new version of those libraries is checked
 * against that one file.
 */

const LIB = path.resolve(__dirname, '../../../lib')
const INTERNALS = 'features/oauth/passport/internals.ts'

/** The internals, as code touches them: `x._oauth2` or `x['_oauth2']`, and so on. */
const INTERNAL_MEMBERS: Readonly<Record<string, RegExp>> = {
  // passport-oauth2's node-oauth client on a strategy.
  _oauth2: /(?:\.|\[\s*['"`])_oauth2\b/,
  // Passport's lookup of a strategy by name.
  _strategy: /(?:\.|\[\s*['"`])_strategy\b/,
  // node-oauth's one request method, and the authorization URL it keeps.
  _executeRequest: /_executeRequest/,
  _authorizeUrl: /_authorizeUrl/,
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : []
  })
}

const rel = (file: string) => path.relative(LIB, file).split(path.sep).join('/')

/** Each line of `file` that names an internal, as `file:line: text`. */
function internalsNamedIn(file: string, members: readonly RegExp[] = Object.values(INTERNAL_MEMBERS)): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, index) =>
      members.some((member) => member.test(line)) ? [`${rel(file)}:${index + 1}: ${line.trim()}`] : [],
    )
}

describe("Passport's internals", () => {
  it('are named by no file of lib/ but passport/internals.ts', () => {
    const elsewhere = sourceFiles(LIB)
      .filter((file) => rel(file) !== INTERNALS)
      .flatMap((file) => internalsNamedIn(file))
    expect(elsewhere).toEqual([])
  })

  it.each(Object.entries(INTERNAL_MEMBERS))(
    'are found where they are read: %s in passport/internals.ts',
    (_, member) => {
      expect(internalsNamedIn(path.join(LIB, INTERNALS), [member])).not.toEqual([])
    },
  )
})
