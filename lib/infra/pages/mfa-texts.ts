/**
 * The English texts of the second-factor pages (`mfa`, `mfa-setup`, `mfa-codes`): `en.mfa` in
 * ./messages.ts, which types them (this file imports nothing, so the two never import each other).
 */

export const MFA = {
  heading: 'Two-step verification',
  message: 'Enter the 6-digit code from your authenticator app.',
  codeLabel: 'Code from your authenticator app',
  button: 'Verify',
  useRecoveryCode: 'Use a recovery code',
  recoveryLabel: 'Recovery code',
  recoveryButton: 'Verify recovery code',
  withPasskey: 'Use a passkey',
  passkeyFailed: 'That passkey did not work. Try again, or use a code.',
  wrong: 'That code did not work.',
  ended: 'Too many wrong codes: sign in again.',
  signIn: 'Sign in',
  setup: {
    heading: 'Set up your authenticator app',
    scan: 'Scan this QR code with your authenticator app.',
    manual: 'Or enter this key in the app by hand:',
    codeLabel: 'The 6-digit code the app shows',
    button: 'Turn on',
  },
  codes: {
    heading: 'Your recovery codes',
    message:
      'Each code works once, in place of a code from your authenticator app. Keep them somewhere safe: they will not be shown again.',
    continue: 'Continue',
  },
}
