import { ConfigurationError } from '../../infra/errors'
import { hasControls } from '../../infra/logger'
import type { PasskeyStore } from './store'
import { simpleWebAuthn } from './lazy'
import { checkKeys } from '../../infra/util/options'
import { isRecord } from '../../infra/util/object'
import type { PasskeyProvider } from './types'

export interface PasskeyOptions {
  /** Default `passkey`. */
  id?: string
  /** Default `Passkey`. */
  name?: string
  /** The name authenticators show beside the passkey. Default: the service's host. */
  relyingPartyName?: string
  /**
   * Lets a visitor without a session create an account whose only way in is a passkey. The
   * `signIn` callback decides, as for every provider. Default false: passkeys are added by signed-in users.
   */
  signUp?: boolean
  /** Seconds a challenge lives, from the options request to the answer. Default 300. */
  challengeMaxAge?: number
  /**
   * Seconds after signing in during which a user may add a passkey (30 to 3600). An older session
   * is sent to sign in again first, so that a copied session cookie cannot plant a passkey of its
   * own, which would outlive sign-out everywhere. Default 300: a user who signs in to add one has
   * time to find the page; a cookie stolen later is refused.
   */
  registrationMaxAge?: number
  /** Where passkeys are kept: your own database. Default: Redis when `redis` is set, else memory. */
  store?: PasskeyStore
  /**
   * Accepts a passkey used without user verification (no PIN, fingerprint or face): then a stolen,
   * unlocked device is enough to sign in. Default false.
   */
  dangerouslyAllowWithoutUserVerification?: boolean
}

const KEYS = [
  'id',
  'name',
  'relyingPartyName',
  'signUp',
  'challengeMaxAge',
  'registrationMaxAge',
  'store',
  'dangerouslyAllowWithoutUserVerification',
]
const STORE_METHODS = ['create', 'get', 'listByUser', 'update', 'delete', 'userHandle']

/** Sign-in with a passkey (WebAuthn), the wire of NextAuth v5's `next-auth/webauthn` client. */
export function passkey(options: PasskeyOptions = {}): PasskeyProvider {
  if (!isRecord(options)) throw new ConfigurationError('passkey() takes an options object such as { signUp: false }')
  const where = `providers["${typeof options.id === 'string' ? options.id : 'passkey'}"]`
  checkKeys(options, KEYS, `${where}.`)
  const text = (value: unknown, option: string, fallback: string | undefined) => {
    if (value === undefined) return fallback
    if (typeof value !== 'string' || value === '' || value.length > 64 || hasControls(value))
      throw new ConfigurationError(
        `\`${where}.${option}\` must be a short name (1 to 64 characters); got ${JSON.stringify(value)}`,
      )
    return value
  }
  const flag = (value: unknown, option: string) => {
    if (value === undefined) return false
    if (typeof value !== 'boolean') throw new ConfigurationError(`\`${where}.${option}\` must be true or false`)
    return value
  }
  const seconds = (value: unknown, option: string, max: number) => {
    if (value === undefined) return 300
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 30 || value > max)
      throw new ConfigurationError(
        `\`${where}.${option}\` must be a whole number of seconds from 30 to ${max}; got ${JSON.stringify(value)}`,
      )
    return value
  }
  const store: unknown = options.store
  if (store !== undefined && !(isRecord(store) && STORE_METHODS.every((method) => typeof store[method] === 'function')))
    throw new ConfigurationError(
      `\`${where}.store\` must be a PasskeyStore: an object with ${STORE_METHODS.map((m) => `${m}()`).join(', ')}`,
    )
  // Loaded with the provider, not by the package: an app without passkeys never pays its 10 MB, and
  // the first ceremony of one that has them does not wait for it.
  simpleWebAuthn()
  return Object.freeze({
    id: text(options.id, 'id', 'passkey')!,
    name: text(options.name, 'name', 'Passkey')!,
    type: 'webauthn' as const,
    protocol: 'webauthn' as const,
    relyingPartyName: text(options.relyingPartyName, 'relyingPartyName', undefined),
    userVerification: flag(options.dangerouslyAllowWithoutUserVerification, 'dangerouslyAllowWithoutUserVerification')
      ? ('preferred' as const)
      : ('required' as const),
    signUp: flag(options.signUp, 'signUp'),
    challengeMaxAge: seconds(options.challengeMaxAge, 'challengeMaxAge', 600),
    registrationMaxAge: seconds(options.registrationMaxAge, 'registrationMaxAge', 3600),
    store: store as PasskeyStore | undefined,
  })
}
