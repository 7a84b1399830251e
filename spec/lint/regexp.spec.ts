import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'

/**
 * A regular expression that backtracks super-linearly lets one request burn seconds of CPU (a
 * 16 KB path of slashes once cost 0.4 s a request). `npm run lint` refuses them; this spec keeps
 * that true for lib/ wherever the suite runs. (eslint-plugin-regexp is an ES module, so ESLint
 * runs as its own process.)
 */
describe('regular expressions in lib/', () => {
  it('none backtracks super-linearly', async () => {
    const root = path.resolve(__dirname, '../..')
    const eslint = path.join(root, 'node_modules/eslint/bin/eslint.js')
    const config = path.join(__dirname, 'regexp.config.mjs')
    const { stdout } = await promisify(execFile)(
      process.execPath,
      // --no-inline-config: no comment in lib/ can turn these rules off (and the type-checked rules
      // that lib/'s comments name are not loaded here).
      [eslint, '--config', config, '--no-inline-config', '--format', 'json', 'lib'],
      { cwd: root },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '[]' }))
    const results = JSON.parse(stdout) as Array<{
      filePath: string
      messages: Array<{ line: number; message: string }>
    }>
    expect(results.length).toBeGreaterThan(30)
    const found = results.flatMap((result) =>
      result.messages.map((m) => `${path.relative(root, result.filePath)}:${m.line} ${m.message}`),
    )
    expect(found).toEqual([])
  })
})
