import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const root = join(__dirname, '..')
const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim()

describe('the published package', () => {
  beforeAll(() => {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe' })
  })

  it('works with require()', () => {
    expect(node(['-e', "const { auth } = require('express-auth-service'); console.log(typeof auth, typeof auth({ url: 'http://localhost/api/auth', secret: 'x'.repeat(32) }).getSession)"])).toBe('function function')
  })

  it('works with import', () => {
    expect(node(['--input-type=module', '-e', "import { auth, AuthError } from 'express-auth-service'; console.log(typeof auth, typeof AuthError)"])).toBe('function function')
  })

  it('ships type declarations', () => {
    expect(existsSync(join(root, 'dist/lib/index.d.ts'))).toBe(true)
  })
})
