import { format, type Messages, type PasswordRuleCode } from './messages'

/**
 * The password pages (`password()`): their data, and the models ./render.ts gives their views
 * (views/password-*.ejs). Every text comes from `Messages`; a rule's code is shown by its text,
 * never as it is.
 */

/** How the pages ask for who signs in: an e-mail address or a user name. */
export type IdentifierKind = 'email' | 'username'

/** The lengths a new password must keep, in characters (the policy's `minLength` and `maxLength`). */
interface NewPassword {
  readonly minLength: number
  readonly maxLength: number
  /** The rules the password sent broke: the form comes back listing each. */
  readonly reasons?: readonly PasswordRuleCode[]
}

/** Every password form posts the CSRF token and where to go afterwards. `base`: the service URL. */
interface PasswordForm {
  readonly base: string
  /** Absolute URL the form posts to. */
  readonly action: string
  readonly csrfToken: string
  readonly callbackUrl: string
}

export interface PasswordSignupData extends PasswordForm, NewPassword {
  readonly identifier: IdentifierKind
  /** What the user typed as the identifier, and as their name: the form comes back filled in. */
  readonly value?: string
  readonly name?: string
  /** The identifier is not an address (or not a user name): said above the form. */
  readonly invalidIdentifier?: boolean
  /** The user name has an account already (names are no secret; addresses are never said to be taken). */
  readonly taken?: boolean
  readonly signInUrl: string
}

export interface PasswordForgotData extends PasswordForm {
  readonly identifier: IdentifierKind
  readonly value?: string
}

/** The reset link's form: `token` and `email` come from the link and go back with the new password. */
export interface PasswordResetData extends PasswordForm, NewPassword {
  readonly token: string
  readonly email: string
}

export interface PasswordChangeData extends PasswordForm, NewPassword {
  /** The session is not recent: the current password is asked. */
  readonly needsCurrent: boolean
  /** The user has no password yet (signed in another way): this adds one. */
  readonly adding: boolean
  /** Adding with user names: the user chooses theirs. */
  readonly askUsername: boolean
  readonly wrongCurrent?: boolean
  /** Adding: the user name is not one, or (e-mail) the user has no verified address. */
  readonly invalidIdentifier?: boolean
  /** Adding: another account signs in with this identifier. */
  readonly taken?: boolean
}

export interface PasswordSentData {
  readonly base: string
  readonly kind: 'signup' | 'reset'
}

export interface PasswordDoneData {
  readonly base: string
  readonly kind: 'reset' | 'changed' | 'added'
  readonly signInUrl: string
  readonly callbackUrl: string
}

export interface PasswordViewData {
  'password-signup': PasswordSignupData
  'password-forgot': PasswordForgotData
  'password-reset': PasswordResetData
  'password-change': PasswordChangeData
  'password-sent': PasswordSentData
  'password-done': PasswordDoneData
}

export interface PageModel {
  readonly title: string
  readonly locals: Readonly<Record<string, unknown>>
  /** The one script the page runs (ours, by its full URL), which its CSP then allows; none by default. */
  readonly script?: string
}

type PasswordModels = { readonly [V in keyof PasswordViewData]: (t: Messages, data: PasswordViewData[V]) => PageModel }

const NEW_PASSWORD_LOCALS = ['minLength', 'maxLength', 'hint', 'reasons'] as const
const FORM_LOCALS = ['t', 'action', 'csrfToken', 'callbackUrl'] as const

/** What each password view may use (strict mode: anything else throws). */
export const PASSWORD_LOCALS: Readonly<Record<keyof PasswordViewData, readonly string[]>> = {
  'password-signup': [...FORM_LOCALS, ...NEW_PASSWORD_LOCALS, 'field', 'value', 'name', 'problem', 'signInUrl'],
  'password-forgot': [...FORM_LOCALS, 'field', 'value', 'signInUrl'],
  'password-reset': [...FORM_LOCALS, ...NEW_PASSWORD_LOCALS, 'token', 'email'],
  'password-change': [
    ...FORM_LOCALS,
    ...NEW_PASSWORD_LOCALS,
    'heading',
    'message',
    'button',
    'askUsername',
    'needsCurrent',
    'problem',
  ],
  'password-sent': ['t', 'text', 'signInUrl'],
  'password-done': ['t', 'text', 'url'],
}

/** The identifier's field: its name in the form (what the feature reads), its input type and its label. */
export function identifierField(t: Messages, kind: IdentifierKind) {
  return kind === 'username'
    ? { name: 'username', type: 'text', label: t.signin.usernameLabel }
    : { name: 'email', type: 'email', label: t.signin.emailLabel }
}

/**
 * A link to another page of the flow that keeps the user's `callbackUrl`, unless it has one. A
 * value that is not an absolute URL is left as it is.
 */
export function keepingCallback(url: string, callbackUrl: string): string {
  if (!callbackUrl || !URL.canParse(url)) return url
  const link = new URL(url)
  if (!link.searchParams.has('callbackUrl')) link.searchParams.set('callbackUrl', callbackUrl)
  return link.href
}

/**
 * The new-password field's locals: the lengths, the hint, and the texts of the rules broken, each
 * once, in the order given. A code without a text (only a caller's mistake) shows none, never itself.
 */
function newPassword(t: Messages, { minLength, maxLength, reasons = [] }: NewPassword) {
  const lengths = { min: String(minLength), max: String(maxLength) }
  const known = [...new Set(reasons)].filter((code) => Object.hasOwn(t.password.reasons, code))
  return {
    minLength,
    maxLength,
    hint: format(t.password.hint, lengths),
    reasons: known.map((code) => format(t.password.reasons[code], lengths)),
  }
}

function form({ action, csrfToken, callbackUrl }: PasswordForm) {
  return { action, csrfToken, callbackUrl }
}

export const PASSWORD_MODELS: PasswordModels = {
  'password-signup': (t, data) => {
    const field = identifierField(t, data.identifier)
    const invalid = data.identifier === 'username' ? t.password.invalidUsername : t.password.invalidEmail
    const problem = data.invalidIdentifier ? invalid : data.taken ? t.password.usernameTaken : undefined
    return {
      title: t.titles['password-signup'],
      locals: {
        ...form(data),
        ...newPassword(t, data),
        field,
        value: data.value ?? '',
        name: data.name ?? '',
        problem,
        signInUrl: data.signInUrl,
      },
    }
  },
  'password-forgot': (t, data) => ({
    title: t.titles['password-forgot'],
    locals: {
      ...form(data),
      field: identifierField(t, data.identifier),
      value: data.value ?? '',
      signInUrl: keepingCallback(`${data.base}/signin`, data.callbackUrl),
    },
  }),
  'password-reset': (t, data) => ({
    title: t.titles['password-reset'],
    locals: { ...form(data), ...newPassword(t, data), token: data.token, email: data.email },
  }),
  'password-change': (t, data) => ({
    title: t.titles['password-change'],
    locals: {
      ...form(data),
      ...newPassword(t, data),
      heading: data.adding ? t.password.change.addHeading : t.password.change.heading,
      message: data.adding ? t.password.change.addMessage : undefined,
      button: data.adding ? t.password.change.addButton : t.password.change.button,
      askUsername: data.askUsername,
      needsCurrent: data.needsCurrent,
      problem: changeProblem(t, data),
    },
  }),
  'password-sent': (t, { base, kind }) => ({
    title: t.titles['password-sent'],
    locals: { text: kind === 'reset' ? t.password.sent.reset : t.password.sent.signup, signInUrl: `${base}/signin` },
  }),
  'password-done': (t, { kind, signInUrl, callbackUrl }) => {
    const shown = kind === 'changed' || kind === 'added' ? kind : 'reset'
    return {
      title: t.titles['password-done'],
      locals: { text: t.password.done[shown], url: shown === 'reset' ? signInUrl : callbackUrl },
    }
  },
}

function changeProblem(t: Messages, data: PasswordChangeData): string | undefined {
  if (data.wrongCurrent) return t.password.change.wrongCurrent
  if (data.invalidIdentifier) return data.askUsername ? t.password.invalidUsername : t.password.change.noVerifiedEmail
  if (data.taken) return data.askUsername ? t.password.usernameTaken : t.password.change.emailTaken
  return undefined
}
