import { scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { randomBuffer } from './random'

/**
 * Password hashes, as PHC strings (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`). New hashes are
 * argon2id at OWASP's parameters (19 MiB, 2 passes, 1 lane) through `@node-rs/argon2`, a Node-API
 * addon (one build serves every Node version); where it cannot load, scrypt from node:crypto at
 * OWASP's (N=2^17, r=8, p=1). Verification also takes argon2i/d, our scrypt, and bcrypt (`$2a$`,
 * `$2b$`, `$2y$`: hashes imported from an existing user table, docs/password-import.md), and says
 * when a hash should be made again at the current parameters. A stored string is outside input
 * too (a database row anyone with write access can set): parameters that would make one
 * verification take gigabytes or minutes are refused before any work.
 */
export interface PasswordHashing {
  readonly algorithm: 'argon2id' | 'scrypt'
  /** A PHC string at the current parameters. `password` is already NFKC-normalised. */
  hash(password: string): Promise<string>
  /**
   * `ok`: the password matches; `rehash`: it matches, and the hash is not at the current algorithm
   * and parameters. A malformed or hostile stored string: `{ ok: false }`, never an exception.
   */
  verify(stored: string, password: string): Promise<{ ok: boolean; rehash: boolean }>
  /** Costs what verifying a current hash costs, and matches nothing: the work done for an unknown identifier. */
  dummy(password: string): Promise<void>
  /** Whether `stored` is at the current algorithm and parameters (its verification costs what dummy() costs). */
  isCurrent(stored: string): boolean
}

/** OWASP Password Storage Cheat Sheet: argon2id, m=19456 KiB, t=2, p=1. */
export const ARGON2ID = Object.freeze({ memoryCost: 19_456, timeCost: 2, parallelism: 1 })
/** OWASP's scrypt: N=2^17 (128 MiB with r=8), r=8, p=1. */
export const SCRYPT = Object.freeze({ ln: 17, r: 8, p: 1 })

/** The most a stored string may ask for: beyond, it is refused unverified. */
const CAPS = Object.freeze({
  argonMemory: 262_144,
  argonTime: 16,
  argonLanes: 16,
  scryptLn: 20,
  scryptR: 32,
  scryptP: 16,
  bcryptCost: 15,
})
const MAX_STORED = 512
const SALT_BYTES = 16
const KEY_BYTES = 32

type Argon2 = typeof import('@node-rs/argon2')
/** The part of `bcryptjs` (pure JavaScript: it loads everywhere) the verifier uses, for imported hashes only. */
interface Bcrypt {
  compare(password: string, hash: string): Promise<boolean>
}

/** `@node-rs/argon2`, or null where its addon does not load (then scrypt hashes new passwords). */
function loadArgon2(): Argon2 | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@node-rs/argon2') as Argon2
  } catch {
    return null
  }
}

let bcryptModule: Bcrypt | null | undefined
function loadBcrypt(): Bcrypt | null {
  if (bcryptModule === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      bcryptModule = require('bcryptjs') as Bcrypt
    } catch {
      bcryptModule = null
    }
  }
  return bcryptModule
}

export function passwordHashing(options: { prefer?: 'argon2id' | 'scrypt' } = {}): PasswordHashing {
  const argon2 = options.prefer === 'scrypt' ? null : loadArgon2()
  const algorithm = argon2 ? 'argon2id' : 'scrypt'
  const hash = argon2
    ? (password: string) => argon2.hash(password, { ...ARGON2ID, algorithm: 2 /* Argon2id */ })
    : (password: string) => scryptHash(password)
  const dummyHash = hash('an unused password that matches no one')
  // Settled at once so that a failure (which verify() would also meet) is never unhandled.
  dummyHash.catch(() => undefined)
  const current = (stored: string) =>
    argon2 ? isCurrentArgon2(argon2, stored) : stored.startsWith(`$scrypt$ln=${SCRYPT.ln},r=${SCRYPT.r},p=${SCRYPT.p}$`)
  async function verify(stored: string, password: string) {
    let ok: boolean
    try {
      ok = await verifyAny(argon2 ?? loadArgon2(), stored, password)
    } catch {
      ok = false
    }
    return { ok, rehash: ok && !current(stored) }
  }
  return Object.freeze({
    algorithm,
    hash,
    verify,
    async dummy(password: string) {
      await verify(await dummyHash, `${password}\u0000`)
    },
    isCurrent: (stored: string) => typeof stored === 'string' && current(stored),
  })
}

async function verifyAny(argon2: Argon2 | null, stored: string, password: string): Promise<boolean> {
  if (typeof stored !== 'string' || stored.length > MAX_STORED) return false
  if (/^\$argon2(?:id|i|d)\$/.test(stored)) return argon2 !== null && verifyArgon2(argon2, stored, password)
  if (stored.startsWith('$scrypt$')) return scryptVerify(stored, password)
  if (/^\$2[aby]\$\d\d\$/.test(stored)) return verifyBcrypt(stored, password)
  return false
}

async function verifyArgon2(argon2: Argon2, stored: string, password: string): Promise<boolean> {
  const params = argon2.parseOptions(stored)
  if (params.memoryCost > CAPS.argonMemory || params.timeCost > CAPS.argonTime || params.parallelism > CAPS.argonLanes)
    return false
  return argon2.verify(stored, password)
}

function isCurrentArgon2(argon2: Argon2, stored: string): boolean {
  try {
    const p = argon2.parseOptions(stored)
    return (
      stored.startsWith('$argon2id$v=19$') &&
      p.memoryCost === ARGON2ID.memoryCost &&
      p.timeCost === ARGON2ID.timeCost &&
      p.parallelism === ARGON2ID.parallelism &&
      p.outputLen >= KEY_BYTES &&
      p.saltLen >= SALT_BYTES
    )
  } catch {
    return false
  }
}

async function verifyBcrypt(stored: string, password: string): Promise<boolean> {
  const bcrypt = loadBcrypt()
  // `$2b$NN$` then 53 characters of bcrypt's base64: the cost is the two digits (checked by the caller's pattern).
  if (bcrypt === null || stored.length !== 60 || Number(stored.slice(4, 6)) > CAPS.bcryptCost) return false
  // bcrypt reads 72 bytes at most: a longer password would match on its first 72 alone. Refused,
  // after a comparison's work all the same: a refusal at once would tell such an account apart.
  if (Buffer.byteLength(password, 'utf8') > 72) {
    await bcrypt.compare('', stored)
    return false
  }
  return bcrypt.compare(password, stored)
}

function scrypt(password: string, salt: Buffer, ln: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** ln
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * p + 64 * 1024 * 1024 }
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

async function scryptHash(password: string): Promise<string> {
  const salt = randomBuffer(SALT_BYTES)
  const key = await scrypt(password, salt, SCRYPT.ln, SCRYPT.r, SCRYPT.p)
  return `$scrypt$ln=${SCRYPT.ln},r=${SCRYPT.r},p=${SCRYPT.p}$${b64(salt)}$${b64(key)}`
}

/** `$scrypt$ln=<n>,r=<n>,p=<n>$<salt>$<hash>` with PHC's unpadded standard base64; parsed without regex backtracking. */
async function scryptVerify(stored: string, password: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 5 || parts[0] !== '' || parts[1] !== 'scrypt') return false
  const params = new Map(parts[2]!.split(',').map((pair) => pair.split('=') as [string, string]))
  const [ln, r, p] = ['ln', 'r', 'p'].map((name) => Number(params.get(name) ?? NaN))
  if (![ln, r, p].every((n) => Number.isInteger(n) && n! >= 1)) return false
  if (ln! > CAPS.scryptLn || r! > CAPS.scryptR || p! > CAPS.scryptP) return false
  // Memory and work together at most what ln=20, r=8, p=1 takes (1 GiB).
  if (2 ** ln! * r! * p! > 2 ** 20 * 8) return false
  const salt = Buffer.from(parts[3]!, 'base64')
  const expected = Buffer.from(parts[4]!, 'base64')
  if (salt.length < 8 || expected.length !== KEY_BYTES) return false
  const key = await scrypt(password, salt, ln!, r!, p!)
  return timingSafeEqual(key, expected)
}

function b64(bytes: Buffer): string {
  const text = bytes.toString('base64')
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  return text.slice(0, text.length - padding)
}
