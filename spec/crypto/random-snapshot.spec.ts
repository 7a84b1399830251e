import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

jest.setTimeout(60_000)

// An app started from a V8 startup snapshot (`node --build-snapshot`, or a single executable
// application with `useSnapshot`) that loaded the package while the snapshot was built: every
// process started from it must still draw its own random bytes (tokens, CSRF tokens, the IVs of
// sealed cookies). Random bytes drawn ahead of time, into a pool, would be baked into the snapshot:
// the app here draws while the snapshot is built too, as an app that makes a token at start would.
it('processes started from one startup snapshot draw different bytes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'random-snapshot-'))
  try {
    const entry = join(dir, 'entry.ts')
    writeFileSync(
      entry,
      `import { randomToken } from ${JSON.stringify(resolve(__dirname, '../../lib/infra/crypto/random'))}
const v8 = require('node:v8')
const atBuild = randomToken(32)
v8.startupSnapshot.setDeserializeMainFunction(() => process.stdout.write(atBuild + ' ' + randomToken(32)))\n`,
    )
    const bundle = join(dir, 'entry.js')
    const esbuild = resolve(__dirname, '../../node_modules/.bin/esbuild')
    execFileSync(esbuild, [
      entry,
      '--bundle',
      '--platform=node',
      '--format=cjs',
      `--outfile=${bundle}`,
      '--log-level=error',
    ])
    const blob = join(dir, 'snap.blob')
    execFileSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', bundle], { cwd: dir })
    const draws = [0, 1, 2].map(() =>
      execFileSync(process.execPath, ['--snapshot-blob', blob], { cwd: dir }).toString(),
    )
    const [atBuild] = draws[0]!.split(' ')
    expect(draws.every((draw) => draw.startsWith(`${atBuild} `))).toBe(true) // made once, at build
    expect(new Set(draws.map((draw) => draw.split(' ')[1])).size).toBe(3)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
