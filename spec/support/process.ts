import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

export interface Started {
  child: ChildProcess
  output: () => string
  stop: () => Promise<void>
}

/**
 * Starts a command and resolves once its output matches `ready`; rejects with everything it printed
 * when it exits first or takes longer than `timeoutMs`. The process group is killed on stop.
 */
export function startProcess(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; ready: RegExp; timeoutMs?: number },
): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done()
        child.once('exit', () => done())
        try {
          process.kill(-child.pid!, 'SIGTERM')
        } catch {
          done()
        }
      })
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`timed out waiting for ${options.ready}:\n${output}`))
    }, options.timeoutMs ?? 60_000)
    const onData = (data: Buffer) => {
      output += String(data)
      if (options.ready.test(output)) {
        clearTimeout(timer)
        resolve({ child, output: () => output, stop })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before ready:\n${output}`))
    })
  })
}
