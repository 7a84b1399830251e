/** What `events.backchannelLogout` says: the provider, the users some or all of whose sessions ended, how many. */
export interface BackchannelLogoutMessage {
  provider: string
  userIds: readonly string[]
  sessions: number | null
}

declare module '../../infra/config/types' {
  interface Events {
    /**
     * An OpenID Connect provider's back-channel logout ended sessions of these users: the database
     * sessions its session (`sid`) signed in, or every session of the users its subject signed in (and
     * of cookie sessions); none when it had signed in nobody we know. `sessions`: how many ended, when
     * each ended on its own; null when some user's every session ended at once.
     */
    backchannelLogout?: (message: BackchannelLogoutMessage) => void | Promise<void>
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    backchannel_logout: true
    'backchannel_logout.refused': true
    'signout.provider': true
  }
}

/** The events this feature adds (checked at auth() with the core's). */
export const LOGOUT_EVENTS = ['backchannelLogout'] as const
