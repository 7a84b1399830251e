/** What the token events say: whose tokens, of which provider, and until when the new access token is valid. */
export interface TokenRefreshMessage {
  userId: string
  provider: string
  /** Seconds since the epoch; null when the provider gave no expiry (or for a failure). */
  expiresAt: number | null
}

declare module '../../infra/config/types' {
  interface Events {
    /** `getAccessToken` refreshed a provider's tokens (never the tokens themselves). */
    tokenRefreshed?: (message: TokenRefreshMessage) => void | Promise<void>
    /** A refresh failed for good (`invalid_grant`, revoked consent): `getAccessToken` rejects with RefreshAccessTokenError. */
    tokenRefreshFailed?: (message: TokenRefreshMessage & { reason: string }) => void | Promise<void>
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    'tokens.refreshed': true
    'tokens.refresh_failed': true
    'tokens.warning': true
  }
}

/** The events this feature adds (checked at auth() with the core's). */
export const TOKEN_EVENTS = ['tokenRefreshed', 'tokenRefreshFailed'] as const
