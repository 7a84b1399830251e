import type { HttpErrorCode, SigninPageCode } from '../errors'
import { MFA } from './mfa-texts'
import { PASSWORD, PASSWORD_MAIL } from './password-texts'

/** The built-in pages, by view file name (views/<name>.ejs). */
export type ViewName =
  | 'signin'
  | 'signout'
  | 'error'
  | 'verify-request'
  | 'email-confirm'
  | 'password-signup'
  | 'password-forgot'
  | 'password-reset'
  | 'password-change'
  | 'password-sent'
  | 'password-done'
  | 'mfa'
  | 'mfa-setup'
  | 'mfa-codes'

/**
 * A rule a new password breaks: the same strings as `PasswordReason` (lib/features/password/policy.ts),
 * declared here because the pages may not import a feature. Each has its text in `password.reasons`.
 */
export type PasswordRuleCode =
  'tooShort' | 'tooLong' | 'common' | 'containsIdentifier' | 'containsAppName' | 'breached' | 'unverifiable'

/** Codes the sign-in page explains in its alert box (wire contract, "Error codes"). */
export type SigninAlertCode = SigninPageCode | 'MissingCSRF' | 'Default'

/** Codes the error page explains; any other code is shown as `Default`. */
export type ErrorPageCode =
  'Configuration' | 'AccessDenied' | 'Verification' | 'Default' | 'LastSignInMethod' | HttpErrorCode

export interface ErrorText {
  heading: string
  message: string
  /** The text of the link to the sign-in page; `error.backToSignIn` when absent. */
  link?: string
}

/** A mail's texts: `{host}` is the service's host. */
export interface MailText {
  subject: string
  heading: string
  button: string
  linkText: string
  ignore: string
}

/**
 * Every text of the built-in pages. A language is one object of this type; `{name}` marks a value
 * filled in at render time (and escaped with the rest).
 */
export interface Messages {
  lang: string
  titles: Record<ViewName, string>
  signin: {
    heading: string
    withProvider: string
    emailLabel: string
    or: string
    /** The passkey button (`passkey()`), and what shows when its ceremony fails in the browser. */
    withPasskey: string
    passkeyFailed: string
    /** The password form (`password()`). */
    usernameLabel: string
    passwordLabel: string
    withPassword: string
    forgotPassword: string
    createAccount: string
  }
  signinAlerts: Record<SigninAlertCode, string>
  signout: { heading: string; question: string; button: string }
  error: { backToSignIn: string }
  errors: Record<ErrorPageCode, ErrorText>
  verifyRequest: { heading: string; message: string; link: string }
  emailConfirm: { heading: string; message: string; button: string }
  /** The sign-in mail. */
  email: MailText
  /** The password pages (`password()`): `{min}` and `{max}` are the policy's lengths, in characters. */
  password: {
    newPasswordLabel: string
    hint: string
    /** Above the list of the rules the password breaks. */
    rejected: string
    reasons: Record<PasswordRuleCode, string>
    invalidEmail: string
    invalidUsername: string
    usernameTaken: string
    signUp: { heading: string; nameLabel: string; button: string; haveAccount: string; signIn: string }
    forgot: { heading: string; message: string; button: string }
    reset: { heading: string; message: string; button: string }
    change: {
      heading: string
      currentLabel: string
      button: string
      wrongCurrent: string
      addHeading: string
      addMessage: string
      addButton: string
      noVerifiedEmail: string
      emailTaken: string
    }
    sent: Record<'signup' | 'reset', { heading: string; message: string }>
    done: Record<'reset' | 'changed' | 'added', { heading: string; message: string; link: string }>
  }
  /** The password mails, each with a line that says why it came. */
  passwordMail: Record<'signup' | 'signupExists' | 'reset', MailText & { message: string }>
  /** The second-factor pages: the code asked at sign-in, an authenticator app's set-up, the recovery codes. */
  mfa: {
    heading: string
    message: string
    codeLabel: string
    button: string
    /** The recovery code's form, folded under this text when the app's code is asked too. */
    useRecoveryCode: string
    recoveryLabel: string
    recoveryButton: string
    withPasskey: string
    /** The passkey's answer was refused (the button's script came back to the page). */
    passkeyFailed: string
    wrong: string
    /** Too many wrong codes: the sign-in is over; `signIn` is the link to start again. */
    ended: string
    signIn: string
    setup: { heading: string; scan: string; manual: string; codeLabel: string; button: string }
    codes: { heading: string; message: string; continue: string }
  }
}

const TRY_ANOTHER_ACCOUNT = 'Try signing in with a different account.'

export const en: Messages = {
  lang: 'en',
  titles: {
    signin: 'Sign in',
    signout: 'Sign out',
    error: 'Error',
    'verify-request': 'Check your email',
    'email-confirm': 'Continue signing in',
    'password-signup': 'Create an account',
    'password-forgot': 'Reset your password',
    'password-reset': 'Choose a new password',
    'password-change': 'Your password',
    'password-sent': 'Check your email',
    'password-done': 'Your password is saved',
    mfa: 'Two-step verification',
    'mfa-setup': 'Set up two-step verification',
    'mfa-codes': 'Your recovery codes',
  },
  signin: {
    heading: 'Sign in',
    withProvider: 'Sign in with {name}',
    emailLabel: 'Email address',
    or: 'or',
    withPasskey: 'Sign in with a passkey',
    passkeyFailed: 'Signing in with a passkey did not work. Try again, or use another way to sign in.',
    usernameLabel: 'Username',
    passwordLabel: 'Password',
    withPassword: 'Sign in',
    forgotPassword: 'Forgot your password?',
    createAccount: 'Create an account',
  },
  signinAlerts: {
    Signin: TRY_ANOTHER_ACCOUNT,
    // OAuthSignin: the sign-in could not start at the provider (down, or its discovery failed): an outage, not the user's account.
    OAuthSignin: 'The sign-in service could not be reached. Please try again in a few minutes.',
    OAuthCallback: TRY_ANOTHER_ACCOUNT,
    OAuthCreateAccount: TRY_ANOTHER_ACCOUNT,
    EmailCreateAccount: TRY_ANOTHER_ACCOUNT,
    Callback: TRY_ANOTHER_ACCOUNT,
    OAuthAccountNotLinked: 'To confirm your identity, sign in with the same account you used originally.',
    EmailSignin: 'The email could not be sent. Please try again.',
    CredentialsSignin: 'Sign in failed. Check the details you provided are correct.',
    SessionRequired: 'Please sign in to access this page.',
    AccountAlreadyLinked:
      'That account is already linked to another user. Sign in with it to use that user, or link a different one.',
    ReauthRequired: 'For your security, sign in again to continue.',
    MissingCSRF: 'The sign-in form expired. Please try again.',
    Default: 'Unable to sign in.',
  },
  signout: {
    heading: 'Sign out',
    question: 'Are you sure you want to sign out?',
    button: 'Sign out',
  },
  error: { backToSignIn: 'Back to sign in' },
  errors: {
    Configuration: {
      heading: 'Server error',
      message: 'There is a problem with the server configuration. Check the server logs for more information.',
    },
    AccessDenied: { heading: 'Access denied', message: 'You do not have permission to sign in.' },
    Verification: {
      heading: 'Unable to sign in',
      message: 'The sign-in link is no longer valid. It may have been used already or it may have expired.',
      link: 'Sign in',
    },
    Default: { heading: 'Error', message: 'Something went wrong. Please try again.' },
    LastSignInMethod: {
      heading: 'Cannot remove it',
      message: 'This is the only way left to sign in to your account. Add another one before you remove it.',
    },
    NotFound: { heading: 'Page not found', message: 'There is no page at this address.' },
    MethodNotAllowed: { heading: 'Not allowed', message: 'This page cannot be used that way.' },
    PayloadTooLarge: { heading: 'Request too large', message: 'The information sent was too large.' },
    UnsupportedMediaType: {
      heading: 'Unsupported request',
      message: 'The information sent was in a format this service does not accept.',
    },
    InvalidBody: { heading: 'Bad request', message: 'The information sent could not be read.' },
    InvalidHost: { heading: 'Bad request', message: 'The address of this request is not valid.' },
    RequestTimeout: {
      heading: 'Request timed out',
      message: 'The information sent took too long to arrive. Please try again.',
    },
    TooManyRequests: { heading: 'Too many requests', message: 'Please wait a moment and try again.' },
    ServiceUnavailable: {
      heading: 'Service unavailable',
      message: 'Sign-in is unavailable for a moment. Nothing was changed. Please try again shortly.',
    },
  },
  verifyRequest: {
    heading: 'Check your email',
    message: 'A sign-in link has been sent to your email address.',
    link: 'Go to {site}',
  },
  emailConfirm: {
    heading: 'Sign in',
    message: 'Continue signing in as {email}',
    button: 'Sign in',
  },
  email: {
    subject: 'Sign in to {host}',
    heading: 'Sign in to {host}',
    button: 'Sign in',
    linkText: 'Open this link to sign in:',
    ignore: 'If you did not ask for this e-mail, you can ignore it: nobody can sign in without the link.',
  },
  password: PASSWORD,
  passwordMail: PASSWORD_MAIL,
  mfa: MFA,
}

/**
 * Own keys only: a code such as `constructor` or `__proto__` must fall back to the default and
 * never reach the page through the prototype.
 */
function lookup<K extends string, V>(table: Record<K, V>, code: string | undefined, fallback: K): V {
  const key = code !== undefined && Object.hasOwn(table, code) ? (code as K) : fallback
  return table[key]
}

/** The sign-in page's alert for an `error` code; unknown codes get the default text. */
export function signinAlert(t: Messages, code: string | undefined): string {
  return lookup(t.signinAlerts, code, 'Default')
}

/** The error page's texts for a code; unknown codes get the default texts. */
export function errorText(t: Messages, code: string): Required<ErrorText> {
  const text = lookup(t.errors, code, 'Default')
  return { heading: text.heading, message: text.message, link: text.link ?? t.error.backToSignIn }
}

/** Fills `{name}` markers; unknown markers stay as they are. The result is escaped by the view. */
export function format(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (marker, name: string) =>
    Object.hasOwn(values, name) ? (values[name] ?? '') : marker,
  )
}
