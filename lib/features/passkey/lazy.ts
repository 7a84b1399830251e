import type * as SimpleWebAuthn from '@simplewebauthn/server'
import { load } from '../../infra/util/lazy'

/** @simplewebauthn/server (and its ASN.1 and X.509 modules, 10 MB): for a passkey provider, at its first ceremony. */
export const simpleWebAuthn = (): typeof SimpleWebAuthn => load('@simplewebauthn/server') as typeof SimpleWebAuthn
