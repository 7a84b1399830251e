import type { ProviderInfo } from '../../infra/config/providers'
import type { PasskeyStore } from './store'

/** Sign-in with a passkey (WebAuthn), `passkey()`. */
export interface PasskeyProvider extends ProviderInfo {
  readonly type: 'webauthn'
  readonly protocol: 'webauthn'
  /** The name authenticators show beside the passkey (the relying party's name). */
  readonly relyingPartyName: string | undefined
  /** `required` unless the app set `dangerouslyAllowWithoutUserVerification`. */
  readonly userVerification: 'required' | 'preferred'
  /** A visitor without a session may create an account with a passkey only (the signIn callback decides). */
  readonly signUp: boolean
  /** Seconds a ceremony's challenge lives. */
  readonly challengeMaxAge: number
  /** Seconds after signing in during which a user may add a passkey; older sessions sign in again first. */
  readonly registrationMaxAge: number
  /** The app's own store; Redis's (with `redis`) or this process's memory when absent. */
  readonly store: PasskeyStore | undefined
}

declare module '../../infra/config/providers' {
  interface ProviderKinds {
    passkey: PasskeyProvider
  }
}

declare module '../../infra/config/types' {
  interface Events {
    /**
     * A passkey answered with a signature counter that did not go up: the authenticator may have been
     * cloned. The sign-in was refused; the passkey is kept (the app decides: delete it, tell the user).
     */
    passkeyCloned?: (message: {
      userId: string
      passkeyId: string
      storedCounter: number
      receivedCounter: number
    }) => void | Promise<void>
    /**
     * A passkey was added: by a signed-in user (who signed in within `passkey({ registrationMaxAge })`),
     * or by a visitor's passkey-first sign-up. `handle`: the `listSessions` handle of the session that
     * added it (database sessions); null for cookie sessions and for a sign-up, whose session comes
     * after its passkey. Never the key itself. Tell the user ("a passkey was added to your account"):
     * a passkey outlives sign-out everywhere.
     */
    passkeyAdded?: (message: { userId: string; passkeyId: string; handle: string | null }) => void | Promise<void>
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    'passkey.added': true
    'passkey.refused': true
    'passkey.reauth': true
    'passkey.cloned': true
  }
}

/** The events this feature adds (checked at auth() with the core's). */
export const PASSKEY_EVENTS = ['passkeyCloned', 'passkeyAdded'] as const
