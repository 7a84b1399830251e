/**
 * The English texts of the second-factor pages (`mfa`): `en.mfa` in ./messages.ts, which types them
 * (this file imports nothing, so the two never import each other).
 */
export const MFA = {
  heading: 'Two-step verification',
  totpMessage: 'Enter the 6-digit code from your authenticator app.',
  codeLabel: 'Code',
  verify: 'Verify',
  useRecovery: 'Use a recovery code instead',
  recoveryLabel: 'Recovery code',
  usePasskey: 'Use a passkey',
  wrong: 'That code did not work. Try the newest one.',
  ended: 'Too many codes were tried: sign in again.',
  signInAgain: 'Sign in again',
  setup: {
    heading: 'Set up your authenticator app',
    message: 'Scan the QR code with your authenticator app, then enter the 6-digit code it shows.',
    manual: 'Or type this key into the app:',
    button: 'Turn on',
    wrong: 'That code did not work. Check the time on your phone and try the newest code.',
  },
  codes: {
    heading: 'Your recovery codes',
    message:
      'Keep these somewhere safe. Each works once, in place of a code from your app, if you lose your phone. They will not be shown again.',
    link: 'Continue',
  },
}
