import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server'
import { decodeBase64url } from '../../infra/crypto/base64url'
import { errorText } from '../../infra/logger'
import type { StoredPasskey } from './store'
import { parseJsonObject } from '../../infra/util/json'
import { simpleWebAuthn } from './lazy'
import { isRecord } from '../../infra/util/object'

/**
 * The WebAuthn ceremonies on @simplewebauthn/server: the options a browser is given, and the checks
 * of its answer. Every answer here is a result, never an exception: a hostile response is a refusal.
 */

/** Who the browser is talking to: the service's origin (and the trusted ones on its site) and its host as RP ID. */
export interface RelyingParty {
  readonly id: string
  readonly name: string
  readonly origins: readonly string[]
}

/** How long the browser gives the user, in milliseconds (the challenge lives longer on the server). */
const CEREMONY_TIMEOUT = 120_000

export interface NewCredentialUser {
  /** base64url of the random user handle. */
  readonly handle: string
  /** What the authenticator shows to tell this account from others. */
  readonly name: string
  readonly displayName: string
}

export function registrationOptions(
  rp: RelyingParty,
  user: NewCredentialUser,
  challenge: string,
  userVerification: 'required' | 'preferred',
  exclude: readonly StoredPasskey[],
) {
  return simpleWebAuthn().generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: bytes(user.handle),
    userName: user.name,
    userDisplayName: user.displayName,
    challenge: bytes(challenge),
    timeout: CEREMONY_TIMEOUT,
    attestationType: 'none',
    excludeCredentials: exclude.map(({ id, transports }) => ({ id, transports: [...transports] })),
    authenticatorSelection: { residentKey: 'required', userVerification },
  })
}

/** `allow`: the passkeys that may answer (a second step: the held user's); none given, any discoverable one. */
export function authenticationOptions(
  rp: RelyingParty,
  challenge: string,
  userVerification: 'required' | 'preferred',
  allow?: readonly StoredPasskey[],
) {
  return simpleWebAuthn().generateAuthenticationOptions({
    rpID: rp.id,
    challenge: bytes(challenge),
    timeout: CEREMONY_TIMEOUT,
    userVerification,
    ...(allow ? { allowCredentials: allow.map(({ id, transports }) => ({ id, transports: [...transports] })) } : {}),
  })
}

/** Bytes of our own base64url text (checked where it came in), in the ArrayBuffer the library's types ask for. */
function bytes(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(decodeBase64url(text) ?? [])
}

/** The largest credential ID WebAuthn allows is 1023 bytes: 1364 base64url characters. */
const MAX_ID_LENGTH = 1364

/**
 * The browser's answer as @simplewebauthn/server reads it, or null when it is not shaped like one,
 * or when it was made inside another site's iframe (`crossOrigin: true`): the service never expects
 * that (WebAuthn 7.1 and 7.2), and the library checks it only when the browser names `topOrigin`.
 */
export function responseOf(data: unknown): { id: string; response: Record<string, unknown> } | null {
  if (!isRecord(data) || !isRecord(data.response)) return null
  const { id } = data
  if (typeof id !== 'string' || id.length > MAX_ID_LENGTH || decodeBase64url(id) === null) return null
  if (madeCrossOrigin(data.response.clientDataJSON)) return null
  return { id, response: data.response }
}

function madeCrossOrigin(clientDataJSON: unknown): boolean {
  const bytes = typeof clientDataJSON === 'string' ? decodeBase64url(clientDataJSON) : null
  const clientData = bytes === null ? null : parseJsonObject(bytes.toString('utf8'))
  return clientData !== null && clientData.crossOrigin !== undefined && clientData.crossOrigin !== false
}

export interface Expected {
  readonly challenge: string
  readonly rp: RelyingParty
  readonly userVerification: 'required' | 'preferred'
}

export type RegistrationResult =
  | {
      ok: true
      id: string
      publicKey: string
      counter: number
      transports: string[]
      backedUp: boolean
      deviceType: 'singleDevice' | 'multiDevice'
      aaguid: string
    }
  | { ok: false; reason: string }

export async function verifyRegistration(data: unknown, expected: Expected): Promise<RegistrationResult> {
  try {
    const { verified, registrationInfo: info } = await simpleWebAuthn().verifyRegistrationResponse({
      response: data as RegistrationResponseJSON,
      expectedChallenge: expected.challenge,
      expectedOrigin: [...expected.rp.origins],
      expectedRPID: expected.rp.id,
      requireUserVerification: expected.userVerification === 'required',
    })
    if (!verified || !info) return { ok: false, reason: 'not verified' }
    const { credential } = info
    return {
      ok: true,
      id: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: knownTransports(credential.transports),
      backedUp: info.credentialBackedUp,
      deviceType: info.credentialDeviceType,
      aaguid: info.aaguid,
    }
  } catch (error) {
    // The library's messages quote the answer's own text (its origin, say): outside text for the log.
    return { ok: false, reason: errorText(error) }
  }
}

/** WebAuthn's transport names (AuthenticatorTransport), the only ones a passkey keeps. */
const TRANSPORTS: ReadonlySet<unknown> = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'])

/**
 * The browser's own list, as the library passes it through: only known names, once each, so that
 * an answer cannot make every stored passkey (and every later options answer) kilobytes larger.
 */
function knownTransports(list: unknown): string[] {
  if (!Array.isArray(list)) return []
  return [...new Set((list as unknown[]).filter((name): name is string => TRANSPORTS.has(name)))]
}

export type AuthenticationResult =
  | {
      ok: true
      counter: number
      backedUp: boolean
      /** The authenticator verified its user (PIN, biometrics): something known or held, and something owned. */
      userVerified: boolean
      /** A synced passkey (`multiDevice`): a key kept in software across devices, not in one device's hardware. */
      multiDevice: boolean
    }
  | { ok: false; reason: string }
  /** The signature is good, but the counter did not go up: a cloned authenticator, perhaps. */
  | { ok: false; reason: 'counter'; counter: number }

export async function verifyAuthentication(
  data: unknown,
  passkey: StoredPasskey,
  expected: Expected,
): Promise<AuthenticationResult> {
  try {
    const { verified, authenticationInfo: info } = await simpleWebAuthn().verifyAuthenticationResponse({
      response: data as AuthenticationResponseJSON,
      expectedChallenge: expected.challenge,
      expectedOrigin: [...expected.rp.origins],
      expectedRPID: expected.rp.id,
      // The counter is compared below, once the signature is known to be good, so that only a
      // genuine answer can raise the cloned-authenticator event.
      credential: { id: passkey.id, publicKey: bytes(passkey.publicKey), counter: 0 },
      requireUserVerification: expected.userVerification === 'required',
    })
    if (!verified) return { ok: false, reason: 'not verified' }
    const counter = info.newCounter
    if ((counter > 0 || passkey.counter > 0) && counter <= passkey.counter)
      return { ok: false, reason: 'counter', counter }
    return {
      ok: true,
      counter,
      backedUp: info.credentialBackedUp,
      userVerified: info.userVerified,
      multiDevice: info.credentialDeviceType === 'multiDevice',
    }
  } catch (error) {
    return { ok: false, reason: errorText(error) }
  }
}
