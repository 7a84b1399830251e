import type * as SimpleWebAuthn from '@simplewebauthn/server'
import { load } from '../../infra/util/lazy'

/**
 * @simplewebauthn/server (and its ASN.1 and X.509 modules, 10 MB): loaded when a passkey() provider is
 * made (./factory.ts): the first ceremony does not wait for it, and an app without passkeys never loads it.
 */
export const simpleWebAuthn = (): typeof SimpleWebAuthn => load('@simplewebauthn/server') as typeof SimpleWebAuthn
