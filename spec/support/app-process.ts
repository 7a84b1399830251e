import type { ChildProcess } from 'node:child_process'
import { join, resolve } from 'node:path'
import { freePort, startProcess } from './process'

/**
 * An app in a process of its own, for the specs that need several (sessions shared through Redis,
 * an app that crashes): a TypeScript entry file run by `node` through the require hook
 * `ts-child.js` (transpiled, not type-checked). The app gets PORT (a free port) and must print
 * `listening on <url>` once it listens.
 */

export interface App {
  /** The URL the app printed after `listening on`. */
  url: string
  /** SIGTERM to the app's process group, SIGKILL after 5 s; resolves once it exited. */
  stop(): Promise<void>
  /** Everything the app printed so far, stdout and stderr (for failure messages). */
  output(): string
}

/**
 * Starts `file` with `env` (over this process's environment, PORT from freePort unless `env` has
 * one); resolves once it prints `listening on <url>`, rejects with its output when it exits first
 * or takes over 90 s.
 *
 * The apps a spec file starts start one after another, even when it asks for several at once: on a
 * clean clone the first to start transpiles lib/ into the ts-child cache, and four doing that at
 * once beside the other jest workers on two cores once took over 30 s each (CI). The later ones
 * then load from the cache in well under a second.
 */
export function startApp(file: string, env: NodeJS.ProcessEnv = {}): Promise<App> {
  const started = starting.then(() => launch(file, env))
  starting = started.then(
    () => undefined,
    () => undefined,
  )
  return started
}

let starting: Promise<void> = Promise.resolve()

async function launch(file: string, env: NodeJS.ProcessEnv): Promise<App> {
  const hook = join(__dirname, 'ts-child.js')
  const started = await startProcess(process.execPath, ['--require', hook, resolve(file)], {
    env: { PORT: String(await freePort()), ...env },
    ready: /listening on https?:\/\/[^\s)]+/,
    timeoutMs: 90_000,
  })
  const url = /listening on (https?:\/\/[^\s)]+)/.exec(started.output())![1]!
  return { url, stop: () => halt(started.child), output: started.output }
}

function halt(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done()
    const timer = setTimeout(() => kill(child, 'SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      done()
    })
    kill(child, 'SIGTERM')
  })
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    // Already gone: 'exit' comes (or came) all the same.
  }
}
