// The functions that took the most CPU in a `--cpu-prof` profile, by self time.
// Usage: node bench/support/profile-top.js .bench/profiles/eas-session-cookie.cpuprofile [count]
const { readFileSync } = require('node:fs')
const path = require('node:path')

const [file, count = '25'] = process.argv.slice(2)
if (!file) throw new Error('usage: node bench/support/profile-top.js <file.cpuprofile> [count]')
const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(file, 'utf8'))
const byId = new Map(nodes.map((node) => [node.id, node]))
const self = new Map()
let total = 0
samples.forEach((id, index) => {
  const { functionName, url, lineNumber } = byId.get(id).callFrame
  const where = url ? `${path.relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : ''
  const key = `${functionName || '(anonymous)'} ${where}`.trim()
  const delta = timeDeltas[index] ?? 0
  self.set(key, (self.get(key) ?? 0) + delta)
  total += delta
})
for (const [key, time] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${key}`)
}
