import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'

/**
 * A software WebAuthn authenticator built from node:crypto, for driving the passkey routes over
 * HTTP: ES256 keys, CBOR written by hand (the few types WebAuthn uses), attestation `none`. It
 * answers the service's options as a browser would post them (the JSON of NextAuth's client and of
 * our page's script), and lets a spec bend any part of an answer: origin, RP ID, flags, counter,
 * signature.
 */

/** CBOR (RFC 8949) for integers, byte and text strings, arrays and maps with integer or text keys. */
export function cbor(value: unknown): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length])
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length])
    if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff])
    const out = Buffer.alloc(5)
    out[0] = (major << 5) | 26
    out.writeUInt32BE(length, 1)
    return out
  }
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value])
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)])
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)])
  if (value instanceof Map) {
    const parts = [...value.entries()].flatMap(([key, item]) => [cbor(key), cbor(item)])
    return Buffer.concat([head(5, value.size), ...parts])
  }
  throw new Error(`cbor: cannot encode ${typeof value}`)
}

const b64u = (bytes: Buffer) => bytes.toString('base64url')
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest()

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const

export interface Credential {
  id: Buffer
  key: KeyObject
  publicKey: KeyObject
  userHandle: Buffer
  counter: number
  rpId: string
}

/** What a spec may change in one answer. */
export interface Bend {
  origin?: string
  rpId?: string
  flags?: number
  counter?: number
  challenge?: string
  type?: string
  /** Flips a byte of the signature. */
  tamper?: boolean
  /** Keeps the options' `user.id` as its UTF-8 text's bytes, as NextAuth v5's client writes it (create). */
  userIdAsText?: boolean
}

interface CreationOptions {
  challenge: string
  rp: { id: string }
  user: { id: string }
}

interface RequestOptions {
  challenge: string
  rpId: string
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = []

  constructor(readonly origin: string) {}

  /** navigator.credentials.create(): a new credential, and the registration answer as JSON. */
  create(options: CreationOptions, bend: Bend = {}, reuse?: Credential): Record<string, unknown> {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const credential: Credential = reuse ?? {
      id: randomBytes(16),
      key: privateKey,
      publicKey,
      userHandle: Buffer.from(options.user.id, bend.userIdAsText ? 'utf8' : 'base64url'),
      counter: 0,
      rpId: options.rp.id,
    }
    if (!reuse) this.credentials.push(credential)
    const jwk = credential.publicKey.export({ format: 'jwk' })
    const cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    )
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(credential.id.length)
    const attested = Buffer.concat([Buffer.alloc(16), idLength, credential.id, cose])
    const flags = bend.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT
    const authData = Buffer.concat([this.authData(bend.rpId ?? options.rp.id, flags, credential.counter), attested])
    const clientData = this.clientData('webauthn.create', bend.challenge ?? options.challenge, bend)
    return {
      id: b64u(credential.id),
      rawId: b64u(credential.id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientData),
        attestationObject: b64u(
          cbor(
            new Map<string, unknown>([
              ['fmt', 'none'],
              ['attStmt', new Map()],
              ['authData', authData],
            ]),
          ),
        ),
        transports: ['internal'],
      },
    }
  }

  /** navigator.credentials.get() with a discoverable credential: the assertion as JSON. */
  get(options: RequestOptions, bend: Bend = {}, credential = this.credentials[0]!): Record<string, unknown> {
    credential.counter = bend.counter ?? credential.counter + 1
    const flags = bend.flags ?? FLAGS.UP | FLAGS.UV
    const authData = this.authData(bend.rpId ?? options.rpId, flags, credential.counter)
    const clientData = this.clientData('webauthn.get', bend.challenge ?? options.challenge, bend)
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.key)
    if (bend.tamper) signature[signature.length - 5]! ^= 0x01
    return {
      id: b64u(credential.id),
      rawId: b64u(credential.id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: b64u(credential.userHandle),
      },
    }
  }

  private authData(rpId: string, flags: number, counter: number): Buffer {
    const count = Buffer.alloc(4)
    count.writeUInt32BE(counter)
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count])
  }

  private clientData(type: string, challenge: string, bend: Bend): Buffer {
    return Buffer.from(
      JSON.stringify({ type: bend.type ?? type, challenge, origin: bend.origin ?? this.origin, crossOrigin: false }),
    )
  }
}
