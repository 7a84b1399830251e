// The dashboard's panels (./render.ts): Prometheus text-format scrapes in, one HTML page of inline SVG
// line charts out. Counters are drawn as rates between scrapes; histograms as the mean of the
// interval (rate of the sum over rate of the count); gauges as they were read.

export interface Scrape {
  /** Seconds since the traffic began. */
  readonly t: number
  /** `name{label="value",…}` → value, as the exporter printed it. */
  readonly samples: ReadonlyMap<string, number>
}

const LINE = /^([a-z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/i

export function parseScrape(text: string, t: number): Scrape {
  const samples = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const match = LINE.exec(line)
    if (match) samples.set(`${match[1]}${match[2] ?? ''}`, Number(match[3]))
  }
  return { t, samples }
}

type Point = readonly [number, number]
interface Series {
  readonly label: string
  readonly points: readonly Point[]
}

/** The samples of `name` whose labels include every `label="value"` of `where`, summed. */
function sum(scrape: Scrape, name: string, where: readonly string[] = []): number {
  let total = 0
  for (const [key, value] of scrape.samples) {
    if (!key.startsWith(`${name}{`) && key !== name) continue
    if (where.every((label) => key.includes(label))) total += value
  }
  return total
}

function rate(scrapes: readonly Scrape[], name: string, where: readonly string[] = []): Point[] {
  return scrapes.slice(1).map((scrape, i) => {
    const before = scrapes[i]!
    return [scrape.t, Math.max(0, sum(scrape, name, where) - sum(before, name, where)) / (scrape.t - before.t)]
  })
}

function mean(scrapes: readonly Scrape[], name: string, where: readonly string[]): Point[] {
  return scrapes.slice(1).flatMap((scrape, i): Point[] => {
    const before = scrapes[i]!
    const count = sum(scrape, `${name}_count`, where) - sum(before, `${name}_count`, where)
    const total = sum(scrape, `${name}_sum`, where) - sum(before, `${name}_sum`, where)
    return count > 0 ? [[scrape.t, (1000 * total) / count]] : []
  })
}

function gauge(scrapes: readonly Scrape[], name: string, where: readonly string[]): Point[] {
  return scrapes.map((scrape) => [scrape.t, sum(scrape, name, where)])
}

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c']

function chart(title: string, unit: string, series: readonly Series[]): string {
  const width = 400
  const height = 220
  const pad = { left: 48, right: 12, top: 34, bottom: 28 }
  const all = series.flatMap((one) => one.points)
  const tMax = Math.max(1, ...all.map(([t]) => t))
  const yMax = Math.max(1e-9, ...all.map(([, v]) => v)) * 1.15
  const x = (t: number) => pad.left + (t / tMax) * (width - pad.left - pad.right)
  const y = (v: number) => height - pad.bottom - (v / yMax) * (height - pad.top - pad.bottom)
  const lines = series.map((one, i) => {
    const d = one.points.map(([t, v], j) => `${j === 0 ? 'M' : 'L'}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join('')
    return `<path d="${d}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"/>`
  })
  const legend = series.map(
    (one, i) => `<tspan fill="${COLORS[i % COLORS.length]}" dx="${i === 0 ? 0 : 14}">■ ${escape(one.label)}</tspan>`,
  )
  const ticks = [0, 0.5, 1].map((share) => {
    const value = share * (yMax / 1.15)
    return `<text x="${pad.left - 6}" y="${y(value) + 4}" text-anchor="end">${format(value)}</text><line x1="${pad.left}" x2="${width - pad.right}" y1="${y(value)}" y2="${y(value)}" stroke="#e5e7eb"/>`
  })
  return `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
  <rect width="100%" height="100%" fill="#fff" stroke="#d1d5db"/>
  <text x="12" y="18" font-weight="600">${escape(title)} <tspan fill="#6b7280" font-weight="400">(${escape(unit)})</tspan></text>
  ${ticks.join('')}
  <text x="${width - pad.right}" y="${height - 8}" text-anchor="end" fill="#6b7280">seconds</text>
  <text x="${pad.left}" y="${height - 8}">${legend.join('')}</text>
  ${lines.join('')}
</svg>`
}

function format(value: number): string {
  if (value >= 100) return value.toFixed(0)
  if (value >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
}

export function dashboardPage(scrapes: readonly Scrape[]): string {
  const provider = 'auth_provider="idp"'
  const panels = [
    chart('Sign-ins by outcome', 'per second', [
      { label: 'success', points: rate(scrapes, 'auth_signin_attempts_total', ['auth_outcome="success"']) },
      { label: 'failure', points: rate(scrapes, 'auth_signin_attempts_total', ['auth_outcome="failure"']) },
    ]),
    chart('Session checks by result', 'per second', [
      { label: 'hit', points: rate(scrapes, 'auth_session_checks_total', ['auth_result="hit"']) },
      { label: 'miss', points: rate(scrapes, 'auth_session_checks_total', ['auth_result="miss"']) },
      { label: 'none', points: rate(scrapes, 'auth_session_checks_total', ['auth_result="none"']) },
    ]),
    chart('Provider call latency, mean', 'ms', [
      { label: 'token', points: mean(scrapes, 'auth_provider_duration', [provider, 'auth_endpoint="token"']) },
      { label: 'jwks', points: mean(scrapes, 'auth_provider_duration', [provider, 'auth_endpoint="jwks"']) },
    ]),
    chart('Rate-limit refusals', 'per second', [
      { label: 'requests', points: rate(scrapes, 'auth_ratelimit_refusals_total', ['auth_limit="requests"']) },
    ]),
    chart('Reply cache', 'hit ratio', [
      { label: 'session.replies', points: gauge(scrapes, 'auth_cache_hit_ratio', ['auth_cache="session.replies"']) },
    ]),
    chart('Mail sent', 'per second', [
      { label: 'sent', points: rate(scrapes, 'auth_mail_sent_total', ['auth_outcome="sent"']) },
      { label: 'failed', points: rate(scrapes, 'auth_mail_sent_total', ['auth_outcome="failed"']) },
    ]),
  ]
  return `<!doctype html><html><head><meta charset="utf-8"><style>
  body { font: 13px system-ui, sans-serif; margin: 16px; background: #f3f4f6; color: #111827 }
  h1 { font-size: 18px; margin: 0 0 4px } p { margin: 0 0 12px; color: #4b5563 }
  .grid { display: grid; grid-template-columns: repeat(3, 400px); gap: 12px }
  text { font: 12px system-ui, sans-serif }
</style></head><body>
<h1>express-auth-service: sign-in health</h1>
<p>From the OpenTelemetry metrics of one instance, scraped from its Prometheus exporter every second (${scrapes.length} scrapes).</p>
<div class="grid">${panels.join('\n')}</div>
</body></html>`
}
