import { isIP } from 'node:net'

/**
 * The key a rate limit counts a client under: its IP (`req.ip`, which honours the app's `trust
 * proxy`), IPv6 clients by their /64 (one host usually holds a whole /64) written one way only
 * (lower case, no leading zeros: `2001:DB8::1` and `2001:0db8::1` are one client), an IPv4-mapped
 * address (`::ffff:203.0.113.7`) as the IPv4 address it is, and anything that is no IP at all (a
 * forged X-Forwarded-For behind `trust proxy: true`) under one key, 'invalid', so that made-up
 * values neither get fresh allowances nor fill the store with keys.
 */
export function clientKey(ip: string | undefined): string {
  if (ip === undefined) return 'unknown'
  // Without a zone (`fe80::1%eth0`): its length is the client's to choose.
  const bare = ip.split('%', 1)[0]!.toLowerCase()
  const version = isIP(bare)
  if (version === 0) return 'invalid'
  if (version === 4) return bare
  const groups = ipv6Groups(bare)
  if (groups === null) return 'invalid'
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!]
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of an address `isIP` accepted as IPv6 (a dotted IPv4 tail is two groups). */
function ipv6Groups(ip: string): number[] | null {
  let text = ip
  const lastColon = text.lastIndexOf(':')
  const tail = text.slice(lastColon + 1)
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number)
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', after] = text.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = after === undefined || after === '' ? [] : after.split(':')
  const missing = 8 - left.length - right.length
  if (after === undefined ? left.length !== 8 : missing < 0) return null
  return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((group) => parseInt(group, 16))
}
