// The results table: medians over rounds, each system's ratio to bare Express in the same round,
// and the targets marked met or unmet.
const RSS_TARGET = 1.2

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const ms = (value) => String(Number(value.toFixed(2)))
const mb = (bytes) => (bytes === null ? 'n/a' : (bytes / 1024 / 1024).toFixed(0))
/** A problem on one table line: whitespace (an HTML error page's, say) collapsed, and cut short. */
const oneLine = (text) => {
  const line = text.replace(/\s+/g, ' ').replace(/\|/g, '\\|')
  return line.length > 140 ? `${line.slice(0, 140)}…` : line
}
const verdict = (met) => (met ? 'met' : '**unmet**')
// Targets are given to two decimals, and so are the ratios shown: a ratio is judged as it is shown.
const two = (value) => Math.round(value * 100) / 100
const fast = (row) => two(row.ratio) >= row.system.target
const small = (row) => row.rssRatio !== null && two(row.rssRatio) <= RSS_TARGET

/** Per round, the reference's server CPU time per answer divided by the system's: its capacity, × Express. */
function cpuRatio(rounds, referenceRounds) {
  const ratios = rounds.map((round, index) => referenceRounds[index].cpuUs / round.cpuUs)
  return ratios.length && ratios.every(Number.isFinite) ? median(ratios) : null
}

/** One summary per system: medians of req/s, p50, p99 and of the per-round ratios, with their range. */
exports.summarize = (measured, referenceId) => {
  const reference = measured.find(({ system }) => system.id === referenceId)
  return measured.map(({ system, rounds, startRss, peakRss, problem }) => {
    const ratios = rounds.map((round, index) => round.rps / reference.rounds[index].rps)
    return {
      system,
      problem,
      rps: rounds.length ? median(rounds.map((round) => round.rps)) : null,
      p50: rounds.length ? median(rounds.map((round) => round.p50)) : null,
      p99: rounds.length ? median(rounds.map((round) => round.p99)) : null,
      cpuUs:
        rounds.length && rounds.every((round) => round.cpuUs !== null)
          ? median(rounds.map((round) => round.cpuUs))
          : null,
      cpuRatio: cpuRatio(rounds, reference.rounds),
      ratio: ratios.length ? median(ratios) : null,
      low: Math.min(...ratios),
      high: Math.max(...ratios),
      startRss,
      peakRss,
      rssRatio: peakRss !== null && reference.peakRss ? peakRss / reference.peakRss : null,
    }
  })
}

/** The markdown table (also what the terminal shows), a line per system under a line per group. */
exports.table = (rows) => {
  const lines = [
    '| system | req/s | p50 ms | p99 ms | × Express req/s: median (min–max) | target | server CPU µs/req | × Express by CPU | RSS MB: start, peak | peak RSS × Express |',
    '|---|--:|--:|--:|--:|---|--:|--:|--:|--:|',
  ]
  let group = null
  for (const row of rows) {
    if (row.system.group !== group) {
      group = row.system.group
      lines.push(`| **${group}** | | | | | | | | | |`)
    }
    const { system } = row
    if (row.rps === null) {
      lines.push(`| ${system.label} | | | | | not measured: ${oneLine(row.problem)} | | | | |`)
      continue
    }
    const ratio = `${row.ratio.toFixed(2)} (${row.low.toFixed(2)}–${row.high.toFixed(2)})`
    const goal = system.target === undefined ? '' : `≥ ${system.target.toFixed(2)}: `
    const target = row.problem ? `${goal}invalid (${oneLine(row.problem)})` : goal && `${goal}${verdict(fast(row))}`
    const rss =
      row.rssRatio === null
        ? 'n/a'
        : system.target === undefined
          ? row.rssRatio.toFixed(2)
          : `${row.rssRatio.toFixed(2)} (≤ ${RSS_TARGET.toFixed(2)}: ${verdict(small(row))})`
    lines.push(
      `| ${system.label} | ${Math.round(row.rps)} | ${ms(row.p50)} | ${ms(row.p99)} | ${ratio} | ${target} | ${row.cpuUs === null ? 'n/a' : row.cpuUs.toFixed(0)} | ${row.cpuRatio === null ? 'n/a' : row.cpuRatio.toFixed(2)} | ${mb(row.startRss)}, ${mb(row.peakRss)} | ${rss} |`,
    )
  }
  return lines.join('\n')
}

/** "4 of 6 req/s targets met; 6 of 6 RSS targets met". */
exports.tally = (rows) => {
  const targeted = rows.filter((row) => row.system.target !== undefined && row.rps !== null && !row.problem)
  const speed = targeted.filter(fast).length
  const memory = targeted.filter(small).length
  return `${speed} of ${targeted.length} req/s targets met; ${memory} of ${targeted.length} RSS targets met`
}
