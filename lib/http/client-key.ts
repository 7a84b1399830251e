import { isIP } from 'node:net'

/**
 * The key a rate limit counts a client under: its IP (`req.ip`, which honours the app's `trust
 * proxy`), IPv6 clients by their /64 (one host usually holds a whole /64), and anything that is no
 * IP at all (a forged X-Forwarded-For behind `trust proxy: true`) under one key, 'invalid', so that
 * made-up values neither get fresh allowances nor fill the store with keys.
 */
export function clientKey(ip: string | undefined): string {
  if (ip === undefined) return 'unknown'
  // Without a zone (`fe80::1%eth0`): its length is the client's to choose.
  const bare = ip.split('%', 1)[0]!
  const version = isIP(bare)
  if (version === 0) return 'invalid'
  if (version === 4 || bare.startsWith('::ffff:')) return bare
  const full = expandIPv6(bare)
  return full === null ? bare : `${full.slice(0, 4).join(':')}::/64`
}

function expandIPv6(ip: string): string[] | null {
  const [head = '', tail] = ip.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const missing = 8 - left.length - right.length
  if (tail === undefined ? left.length !== 8 : missing < 0) return null
  return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right]
}
