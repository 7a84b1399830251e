// Child processes the bench owns: started with a pipe on stdin (they end when it closes, so a
// crashed bench leaves nothing behind), awaited by marker lines on stdout, stopped by their own pid.
const { spawn } = require('node:child_process')
const { readFileSync } = require('node:fs')
const { createInterface } = require('node:readline')

/**
 * Starts `command args…` with `env` added. `waitFor(marker)` resolves with the rest of the next
 * stdout line holding `marker`; lines nobody waits for go to stderr with the process's name, unless `quiet`.
 */
exports.startProcess = (name, command, args, { env = {}, quiet = false } = {}) => {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } })
  const waiting = []
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  createInterface({ input: child.stdout }).on('line', (line) => {
    const index = waiting.findIndex(({ marker }) => line.includes(marker))
    if (index === -1) return void (quiet || process.stderr.write(`[${name}] ${line}\n`))
    const [waiter] = waiting.splice(index, 1)
    clearTimeout(waiter.timer)
    waiter.resolve(line.slice(line.indexOf(waiter.marker) + waiter.marker.length).trim())
  })
  void exited.then((status) => {
    for (const waiter of waiting.splice(0)) {
      clearTimeout(waiter.timer)
      waiter.reject(new Error(`${name} exited (${status}) before printing "${waiter.marker}"`))
    }
  })
  child.once('error', (error) => {
    for (const waiter of waiting.splice(0)) waiter.reject(error)
  })
  return {
    name,
    pid: child.pid,
    waitFor(marker, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1)
          reject(new Error(`${name} did not print "${marker}" within ${timeoutMs} ms`))
        }, timeoutMs).unref()
        const waiter = { marker, resolve, reject, timer }
        waiting.push(waiter)
      })
    },
    /** SIGTERM, then SIGKILL if it is still there after `graceMs` (a CPU profile takes a moment to write). */
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    },
  }
}

/** A memory figure of the process from /proc/<pid>/status (VmRSS now, VmHWM the peak) in bytes; null without /proc. */
exports.memory = (pid, field) => {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : null
  } catch {
    return null
  }
}

/**
 * The CPU time the process has used, user and system, in milliseconds (from /proc/<pid>/stat, whose
 * clock ticks are 10 ms on Linux); null without /proc.
 */
exports.cpuMs = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return null
  }
}
