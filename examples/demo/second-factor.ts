import {
  recoveryCodes,
  totp,
  type FactorInfo,
  type FactorOption,
  type MfaOptions,
  type SessionRecordView,
} from '../../lib'
import { readableTime } from './pages'

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The demo's `mfa` option: an authenticator app (under the demo's name in the app), recovery codes,
 * and its passkey provider, asked of the users who enrolled one (`'enrolled'`: the others sign in
 * in one step, as before). A user-verified passkey proves two factors by itself: no code follows it.
 */
export const demoMfa = (passkeyProvider: FactorOption): MfaOptions => ({
  factors: [totp({ issuer: 'express-auth-service demo' }), recoveryCodes(), passkeyProvider],
  require: 'enrolled',
})

const FACTOR_NAMES: Record<FactorInfo['type'], string> = {
  totp: 'Authenticator app',
  recovery: 'Recovery codes',
}

function factor(info: FactorInfo): string {
  const details = [
    `added ${readableTime(info.createdAt)}`,
    info.lastUsedAt ? `last used ${readableTime(info.lastUsedAt)}` : 'not used yet',
    ...(info.codesLeft === undefined ? [] : [`${info.codesLeft} left`]),
  ]
  return `<li><strong>${escape(FACTOR_NAMES[info.type])}</strong>, ${escape(details.join(' · '))}</li>`
}

/**
 * The home page's two-factor sign-in (`mfa`, docs/mfa.md): how this session was made (`aal` and
 * `amr` of getSessionRecord: a code after the first factor, or a user-verified passkey, makes aal
 * 2), the user's factors (`listFactors`, only apps whose first code was confirmed), and the
 * built-in setup page: the QR code and the key to type, then the recovery codes, shown once.
 * Setting up needs a recent sign-in (and, once a factor is enrolled, one made with it): an older
 * session is sent to sign in again first.
 */
export function secondFactorSection(
  basePath: string,
  record: Pick<SessionRecordView, 'aal' | 'amr'>,
  factors: readonly FactorInfo[],
): string {
  const methods = record.amr.length ? `; ${record.amr.join(', ')}` : ''
  const assurance =
    record.aal === 2
      ? `This session was made with two factors (aal 2${methods}).`
      : `This session was made with one factor (aal 1${methods}).`
  return (
    `<h2>Two-factor sign-in</h2><p class="assurance">${escape(assurance)}</p>` +
    (factors.length
      ? `<ul class="factors">${factors.map(factor).join('')}</ul>`
      : '<p>You have no second factor yet: signing in takes one step.</p>') +
    `<p><a href="${escape(`${basePath}/mfa/setup`)}">Set up two-factor sign-in</a></p>`
  )
}
