declare module '../../infra/logger' {
  interface LogEvents {
    /** The breached-password check got no usable answer; the password was allowed or refused by `breached.onUnavailable`. */
    'password.breach_check_unavailable': true
  }
}

export {}
