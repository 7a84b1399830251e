// Runs a program that ignores its stdin (redis-server) for as long as the bench holds our stdin
// open: when the bench ends, however it ends, the pipe closes and the program is stopped by its pid.
// Usage: node bench/support/guard.js <program> [args…]
const { spawn } = require('node:child_process')

const [program, ...args] = process.argv.slice(2)
const child = spawn(program, args, { stdio: ['ignore', 'inherit', 'inherit'] })
const stop = () => child.kill('SIGTERM')
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
process.stdin.once('end', stop)
process.stdin.resume()
child.once('error', (error) => {
  console.error(`${program}: ${error.message}`)
  process.exit(1)
})
child.once('exit', (code, signal) => process.exit(code ?? (signal === 'SIGTERM' ? 0 : 1)))
