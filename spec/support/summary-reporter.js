// Ends every run with plain lines that CI and people can read: per jest project (displayName), the
// number of spec files and the sum of their run times (each file's perfStats: loading, transforming
// and running it); the run's wall time and worker count; then "tests: N passed, N failed".
class SummaryReporter {
  constructor(globalConfig) {
    this.maxWorkers = globalConfig.maxWorkers
  }

  onRunComplete(_contexts, results) {
    const projects = new Map()
    for (const file of results.testResults) {
      const name = projectName(file.displayName)
      const project = projects.get(name) ?? { files: 0, ms: 0 }
      project.files += 1
      project.ms += file.perfStats && file.perfStats.end > 0 ? file.perfStats.end - file.perfStats.start : 0
      projects.set(name, project)
    }
    const width = Math.max(0, ...[...projects.keys()].map((name) => name.length))
    const lines = [...projects].map(
      ([name, { files, ms }]) =>
        `  ${name.padEnd(width)}  ${String(files).padStart(4)} spec files  ${seconds(ms).padStart(8)} summed`,
    )
    const wall = seconds(Date.now() - results.startTime)
    const workers = `${this.maxWorkers} worker${this.maxWorkers === 1 ? '' : 's'}`
    const skipped = results.numPendingTests + results.numTodoTests
    const tail = skipped > 0 ? `, ${skipped} skipped` : ''
    process.stdout.write(
      `\ntime per project:\n${lines.join('\n')}\nwall time: ${wall} (${workers}, node ${process.version})\n` +
        `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed${tail}\n`,
    )
  }
}

function projectName(displayName) {
  if (!displayName) return '(no project)'
  return typeof displayName === 'string' ? displayName : displayName.name
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`
}

module.exports = SummaryReporter
