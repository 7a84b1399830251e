import { createRequire } from 'node:module'
import type * as Nodemailer from 'nodemailer'
import type * as ConnectRedis from 'connect-redis'
import type * as Flexible from 'rate-limiter-flexible'
import type * as OTPAuth from 'otpauth'
import type * as QRCode from 'qrcode'

// Dependencies that only some configurations use, loaded when one first does, so that an app pays
// in memory only for what it configured (measured at start-up beside bare Express: nodemailer
// 3 MB, @simplewebauthn/server with its ASN.1 modules 10 MB (lib/features/passkey/lazy.ts), rate-limiter-flexible's index 2 MB, connect-redis with express-session 0.5 MB; bench/README.md).
// Node caches each module, so every call after the first is a look-up.

/** `require` from this package, for a dependency of its own that a feature loads when first used. */
export const load = createRequire(__filename)

/** nodemailer: for an e-mail provider that sends through `server`. */
export const nodemailer = (): typeof Nodemailer => load('nodemailer') as typeof Nodemailer

/** connect-redis (which loads express-session): for database sessions in Redis. */
export const connectRedis = (): typeof ConnectRedis => load('connect-redis') as typeof ConnectRedis

/**
 * rate-limiter-flexible's classes, each from its own file: the package's index loads every backend
 * it supports (MongoDB, MySQL, Postgres, DynamoDB …). The files are the ones its index exports.
 * Only the Redis backend is used: the limits in memory are bounded counters of lib/infra/store/memory.ts.
 */
export const rateLimiterRedis = (): typeof Flexible.RateLimiterRedis =>
  load('rate-limiter-flexible/lib/RateLimiterRedis') as typeof Flexible.RateLimiterRedis
export const rateLimiterRes = (): typeof Flexible.RateLimiterRes =>
  load('rate-limiter-flexible/lib/RateLimiterRes') as typeof Flexible.RateLimiterRes

/**
 * otpauth (its Node build, on node:crypto): for authenticator-app codes (lib/infra/crypto/totp.ts),
 * so that an app without a second factor never loads it.
 */
export const otpauth = (): typeof OTPAuth => load('otpauth') as typeof OTPAuth

/**
 * qrcode's encoder alone, for lib/infra/pages/qr-svg.ts: the package's index also loads its PNG
 * (pngjs) and terminal renderers, which the SVG is drawn without. `create` is the index's own export.
 */
export const qrcodeEncoder = (): Pick<typeof QRCode, 'create'> =>
  load('qrcode/lib/core/qrcode') as Pick<typeof QRCode, 'create'>
