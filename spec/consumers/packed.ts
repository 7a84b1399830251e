import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

/**
 * The package as `npm pack` makes it, without touching the repository's dist/ (the demo and other
 * engineers build there): every file of the checkout that git does not ignore is copied to a
 * directory of its own, the library is built fresh into that copy's dist/ (lib and examples, as
 * `npm run build` does), and npm packs the copy. What ships is then decided by package.json's
 * `files` alone, over a tree that holds everything a publisher's checkout holds: spec/, examples/,
 * bench/, .ci/, dist/examples, and a node_modules.
 */

export const root = join(__dirname, '../..')

const exec = promisify(execFile)

/**
 * This process's environment without what `npm test` adds for its scripts (`npm_config_local_prefix`
 * is the repository, `npm_config_legacy_peer_deps` its .npmrc): an npm started here works where it
 * runs, as it would for a user.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'))
}

/** Runs a command and gives its standard output; on failure the error says what it printed. */
export async function run(command: string, args: string[], options: { cwd: string }): Promise<string> {
  return (await runCapturing(command, args, options)).stdout
}

/** Runs a command and gives what it printed on each stream (npm's warnings go to stderr). */
export async function runCapturing(
  command: string,
  args: string[],
  options: { cwd: string },
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await exec(command, args, { cwd: options.cwd, env: cleanEnv(), encoding: 'utf8', maxBuffer: 64 << 20 })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${options.cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, {
      cause: error,
    })
  }
}

export interface Packed {
  /** A temporary directory holding everything below; removed by `remove()`. */
  dir: string
  /** The copy of the checkout that was packed. */
  source: string
  /** The tarball's absolute path. */
  tarball: string
  /** `npm pack --dry-run --json`'s list: every path in the tarball, below `package/`. */
  files: string[]
  remove(): void
}

export async function pack(): Promise<Packed> {
  const dir = mkdtempSync(join(tmpdir(), 'eas-consumers-'))
  const source = join(dir, 'source')
  const remove = () => rmSync(dir, { recursive: true, force: true })
  try {
    await copyCheckout(source)
    // A node_modules beside package.json, as in any checkout; npm never packs it.
    symlinkSync(join(root, 'node_modules'), join(source, 'node_modules'))
    await run(
      process.execPath,
      [
        join(root, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(root, 'tsconfig.build.json'),
        '--outDir',
        join(source, 'dist'),
      ],
      { cwd: root },
    )
    const [dryRun] = JSON.parse(await run('npm', ['pack', '--dry-run', '--json'], { cwd: source })) as [
      { files: Array<{ path: string }> },
    ]
    const [packed] = JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: source })) as [
      { filename: string },
    ]
    return { dir, source, tarball: join(dir, packed.filename), files: dryRun.files.map((file) => file.path), remove }
  } catch (error) {
    remove()
    throw error
  }
}

/** Copies the files of the checkout that git tracks or would (untracked, not ignored). */
async function copyCheckout(to: string): Promise<void> {
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
  for (const path of listed.split('\0')) {
    if (path === '') continue
    mkdirSync(dirname(join(to, path)), { recursive: true })
    try {
      cpSync(join(root, path), join(to, path))
    } catch (error) {
      // Tracked but deleted in the work tree: not part of what a publisher would pack.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
}
