import type { Messages } from './messages'
import { keepingCallback, type PageModel } from './password-views'

/**
 * The second-factor pages: their data, and the models ./render.ts gives their views
 * (views/mfa*.ejs). The routes code against the field names of the forms: `csrfToken`,
 * `callbackUrl`, `factor` (`totp` or `recovery`) and `code`.
 */

/** `base`: the service URL. Every form posts the CSRF token and where to go afterwards. */
interface MfaForm {
  readonly base: string
  /** Absolute URL the form posts to. */
  readonly action: string
  readonly csrfToken: string
  readonly callbackUrl: string
}

/** `GET {base}/mfa`: the second factor is due. `action`: `{base}/mfa/verify`. */
export interface MfaData extends MfaForm {
  /** The user's ways to give it; the page offers each one that is given. */
  readonly factors: { readonly totp: boolean; readonly recovery: boolean; readonly passkey: MfaPasskey | false }
  /**
   * `wrong`: the last code did not match. `passkey`: the last passkey answer was refused. `ended`:
   * too many were wrong; only a link to sign in again is left.
   */
  readonly error?: 'wrong' | 'passkey' | 'ended'
}

/** The passkey button's routes: where the page's script asks for the options, and posts the answer. */
export interface MfaPasskey {
  readonly optionsUrl: string
  readonly verifyUrl: string
}

/** `GET {base}/mfa/setup`: an authenticator app enrolled. `action`: `{base}/mfa/totp/confirm`. */
export interface MfaSetupData extends MfaForm {
  /** An SVG document the server drew from the otpauth URI: trusted markup, written as it is. */
  readonly qrSvg: string
  /** The TOTP secret in base32, shown for typing into the app by hand. */
  readonly secret: string
  /** The code sent did not match. */
  readonly error?: 'wrong'
}

/** The recovery codes, shown once, after enrolment or after they were replaced. */
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

const FORM_LOCALS = ['t', 'action', 'csrfToken', 'callbackUrl'] as const

/** What each view may use (strict mode: anything else throws). */
export const MFA_LOCALS: Readonly<Record<keyof MfaViewData, readonly string[]>> = {
  mfa: [...FORM_LOCALS, 'factors', 'problem', 'wrongCode', 'signInUrl', 'scriptUrl'],
  'mfa-setup': [...FORM_LOCALS, 'qrSvg', 'secret', 'problem'],
  'mfa-codes': ['t', 'codes', 'continueUrl'],
}

function form({ action, csrfToken, callbackUrl }: MfaForm) {
  return { action, csrfToken, callbackUrl }
}

/** The secret in groups of four, as authenticator apps show and accept it ("JBSW Y3DP …"). */
export function groupedSecret(secret: string): string {
  const groups: string[] = []
  for (let i = 0; i < secret.length; i += 4) groups.push(secret.slice(i, i + 4))
  return groups.join(' ')
}

export const MFA_MODELS: MfaModels = {
  mfa: (t, data) => {
    const { totp, recovery, passkey } = data.factors
    // Ended: the sign-in is over, so no form is offered; the link starts a new one toward the same place.
    const ended = data.error === 'ended'
    const problems = { wrong: t.mfa.wrong, passkey: t.mfa.passkeyFailed, ended: t.mfa.ended }
    // The passkey button runs the one script of views/passkey.js; the code forms need none.
    const script = !ended && passkey ? `${data.base}/assets/passkey.js` : undefined
    return {
      title: t.titles.mfa,
      ...(script ? { script } : {}),
      locals: {
        ...form(data),
        factors: ended ? { totp: false, recovery: false, passkey: false } : { totp, recovery, passkey },
        problem: data.error === undefined ? undefined : problems[data.error],
        wrongCode: data.error === 'wrong',
        signInUrl: ended ? keepingCallback(`${data.base}/signin`, data.callbackUrl) : undefined,
        scriptUrl: script,
      },
    }
  },
  'mfa-setup': (t, data) => ({
    title: t.titles['mfa-setup'],
    locals: {
      ...form(data),
      qrSvg: data.qrSvg,
      secret: groupedSecret(data.secret),
      problem: data.error === 'wrong' ? t.mfa.wrong : undefined,
    },
  }),
  'mfa-codes': (t, { codes, continueUrl }) => ({
    title: t.titles['mfa-codes'],
    locals: { codes, continueUrl },
  }),
}
