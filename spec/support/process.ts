import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/**
 * A TCP port that was free a moment ago on 127.0.0.1, for a server the caller starts next (often in
 * another process, or once its URL is registered somewhere).
 *
 * Not the kernel's pick (`listen(0)`): that comes from the ephemeral range, which every other
 * `listen(0)` (supertest, the test IdP, hostile servers) and every outgoing connection draw from, so
 * another process could take the port between this answer and the caller's listen, and the app's
 * requests would reach a stranger (a 404) or nobody (ECONNREFUSED). These ports come from below the
 * ephemeral range instead, in a slice of their own per jest worker, starting at a random place in
 * it (a worker's child processes share its slice), and each is probed before it is answered.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = nextCandidate()
    if (await isFree(port)) return port
  }
  throw new Error('no free port in this worker’s range')
}

const SLICES = 16

/** The range below the kernel's ephemeral ports (from 10000), cut into a slice per jest worker. */
const slice = (() => {
  const ephemeralLow = Number(readFileSyncOr('/proc/sys/net/ipv4/ip_local_port_range', '32768').split(/\s+/)[0])
  const low = 10_000
  const size = Math.floor((Math.max(ephemeralLow, low + SLICES * 200) - low) / SLICES)
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) % SLICES
  return { start: low + worker * size, size }
})()

let offset = Math.floor(Math.random() * slice.size)

function nextCandidate(): number {
  offset = (offset + 1) % slice.size
  return slice.start + offset
}

function readFileSyncOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return fallback
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
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
