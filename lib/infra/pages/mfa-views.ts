import type { Messages } from './messages'
import type { PageModel } from './password-views'

/**
 * The second-factor pages (`mfa`): their data, and the models ./render.ts gives their views
 * (views/mfa*.ejs). Every text comes from `Messages`.
 */

/** `{base}/mfa`: the second factor of a sign-in is due. */
export interface MfaData {
  readonly base: string
  /** Absolute URL of `{base}/mfa/verify`. */
  readonly action: string
  readonly csrfToken: string
  readonly callbackUrl: string
  /** What the user can answer with. */
  readonly factors: { readonly totp: boolean; readonly recovery: boolean; readonly passkey: boolean }
  /** `wrong`: the last code did not work; `ended`: too many did not, the sign-in starts again. */
  readonly error?: 'wrong' | 'ended'
}

/** `{base}/mfa/setup`: an authenticator app is set up. */
export interface MfaSetupData {
  readonly base: string
  /** Absolute URL of `{base}/mfa/totp/confirm`. */
  readonly action: string
  readonly csrfToken: string
  readonly callbackUrl: string
  /** The QR code of the otpauth URI, an SVG document drawn by the server (trusted markup). */
  readonly qrSvg: string
  /** The secret in base32, for typing in. */
  readonly secret: string
  readonly error?: 'wrong'
}

/** The recovery codes, shown once. */
export interface MfaCodesData {
  readonly base: string
  readonly codes: readonly string[]
  readonly continueUrl: string
}

export interface MfaViewData {
  mfa: MfaData
  'mfa-setup': MfaSetupData
  'mfa-codes': MfaCodesData
}

type MfaModels = { readonly [V in keyof MfaViewData]: (t: Messages, data: MfaViewData[V]) => PageModel }

/** What each view may use (strict mode: anything else throws). */
export const MFA_LOCALS: Readonly<Record<keyof MfaViewData, readonly string[]>> = {
  mfa: ['t', 'action', 'csrfToken', 'callbackUrl', 'factors', 'problem', 'ended', 'signInUrl'],
  'mfa-setup': ['t', 'action', 'csrfToken', 'callbackUrl', 'qrSvg', 'secret', 'problem'],
  'mfa-codes': ['t', 'codes', 'continueUrl'],
}

export const MFA_MODELS: MfaModels = {
  mfa: (t, { base, action, csrfToken, callbackUrl, factors, error }) => ({
    title: t.titles.mfa,
    locals: {
      action,
      csrfToken,
      callbackUrl,
      factors: { totp: factors.totp, recovery: factors.recovery, passkey: factors.passkey },
      problem: error === 'wrong' ? t.mfa.wrong : error === 'ended' ? t.mfa.ended : undefined,
      ended: error === 'ended',
      signInUrl: `${base}/signin?${new URLSearchParams({ callbackUrl }).toString()}`,
    },
  }),
  'mfa-setup': (t, { action, csrfToken, callbackUrl, qrSvg, secret, error }) => ({
    title: t.titles['mfa-setup'],
    locals: {
      action,
      csrfToken,
      callbackUrl,
      qrSvg,
      // Grouped by four for typing; the app ignores the spaces.
      secret: secret.replace(/(.{4})(?=.)/g, '$1 '),
      problem: error === 'wrong' ? t.mfa.setup.wrong : undefined,
    },
  }),
  'mfa-codes': (t, { codes, continueUrl }) => ({
    title: t.titles['mfa-codes'],
    locals: { codes: [...codes], continueUrl },
  }),
}
