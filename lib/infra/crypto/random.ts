import { randomBytes, randomFillSync } from 'node:crypto'
import { startupSnapshot } from 'node:v8'

// The one source of randomness in the package: the operating system's CSPRNG through OpenSSL. Each
// call into it costs about 4 µs, nearly all of it fixed, which is most of what a new CSRF token
// costs; so small draws are served from a pool of POOL_BYTES, filled when first needed (never when
// the module loads) and again once spent. It is small (16 tokens of 32 bytes) so that few unissued
// secrets wait in memory, and every byte is zeroed in it as it is handed out. While a V8 startup
// snapshot is being built the pool is not used at all: bytes drawn then would be baked into the
// snapshot, the same in every process started from it (spec/crypto/random-snapshot.spec.ts).

const POOL_BYTES = 512
/** Draws larger than this go to the CSPRNG directly. */
const MAX_POOLED = 64

/** Zeros until first used: memory of its own (Buffer.alloc never slices Node's shared slab). */
const pool = Buffer.alloc(POOL_BYTES)
let offset = POOL_BYTES

/** Where the next `bytes` pooled bytes start, the pool refilled first when too few are left. */
function take(bytes: number): number {
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool)
    offset = 0
  }
  const at = offset
  offset += bytes
  return at
}

function pooled(bytes: number): boolean {
  // A negative or fractional size would move the offset back onto bytes already handed out (zeroed).
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new RangeError(`random: ${bytes} is not a number of bytes`)
  return bytes <= MAX_POOLED && !startupSnapshot.isBuildingSnapshot()
}

/** `bytes` random bytes, base64url-encoded. */
export function randomToken(bytes = 32): string {
  if (!pooled(bytes)) return randomBytes(bytes).toString('base64url')
  const at = take(bytes)
  const token = pool.toString('base64url', at, at + bytes)
  pool.fill(0, at, at + bytes)
  return token
}

/** `bytes` random bytes, in memory of their own (not Node's slab shared by small buffers). */
export function randomBuffer(bytes: number): Buffer {
  if (!pooled(bytes)) return randomBytes(bytes)
  const at = take(bytes)
  const copy = Buffer.alloc(bytes)
  pool.copy(copy, 0, at, at + bytes)
  pool.fill(0, at, at + bytes)
  return copy
}
