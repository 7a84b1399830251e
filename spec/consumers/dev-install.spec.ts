import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

/**
 * A contributor's `npm install` (or `npm ci`) of this repository is quiet on Node 20 with npm 11:
 * read from package-lock.json, the tree npm installs, as npm itself judges it. No package asks for
 * a Node that Node 20 is not (npm's EBADENGINE warning), and every package with an install script
 * is approved in package.json's `allowScripts` (npm 11's "install scripts not yet covered by
 * allowScripts" warning). The tarball's own tree is held to the same by consumers.spec.ts.
 */

const root = join(__dirname, '../..')
/** npm's own reading of a range: semver is in the tree (npm, jest and ESLint bring it), untyped. */
const semver = createRequire(__filename)('semver') as { satisfies(version: string, range: string): boolean }
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  allowScripts?: Record<string, boolean>
}
interface Locked {
  version?: string
  engines?: { node?: string }
  hasInstallScript?: boolean
}
const locked = Object.entries(
  (JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, Locked> }).packages,
).filter(([path]) => path !== '')

/** `node_modules/a/node_modules/@b/c` → `@b/c`. */
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)

// The running Node, and the first Node 20 that the dev tools (ESLint 10, typescript-eslint) accept.
it.each([process.version, '20.19.0'])('on Node %s, no package of the dev tree asks for another Node', (node) => {
  const refused = locked
    .filter(([, entry]) => entry.engines?.node !== undefined && !semver.satisfies(node, entry.engines.node))
    .map(([path, entry]) => `${nameOf(path)}@${entry.version} wants node ${entry.engines!.node}`)
  expect(refused).toEqual([])
})

it('every install script of the dev tree is approved in allowScripts, so npm 11 asks nothing', () => {
  const allowed = manifest.allowScripts ?? {}
  const pending = locked
    .filter(([, entry]) => entry.hasInstallScript === true)
    .map(([path, entry]) => ({ name: nameOf(path), version: entry.version }))
    .filter(({ name, version }) => allowed[name] !== true && allowed[`${name}@${version}`] !== true)
    .map(({ name, version }) => `${name}@${version}`)
  expect(pending).toEqual([])
})
