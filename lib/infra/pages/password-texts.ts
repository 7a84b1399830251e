/**
 * The English texts of the password pages and mails (`password()`): `en.password` and
 * `en.passwordMail` in ./messages.ts, which types them (this file imports nothing, so the two never
 * import each other). `{min}` and `{max}` are the policy's lengths; `{host}` the service's host.
 */

export const PASSWORD = {
  newPasswordLabel: 'New password',
  hint: 'At least {min} characters, at most {max}. A few unrelated words make a strong password that is easy to remember.',
  rejected: 'This password cannot be used:',
  reasons: {
    tooShort: 'It has fewer than {min} characters.',
    tooLong: 'It has more than {max} characters.',
    common: 'It is one of the most common passwords.',
    containsIdentifier: 'It contains your email address or username.',
    containsAppName: 'It contains the name of this service.',
    breached: 'It has appeared in a data breach, so attackers try it first.',
    unverifiable: 'It could not be checked against known data breaches just now. Please try again in a few minutes.',
  },
  invalidEmail: 'Enter a valid email address.',
  invalidUsername: 'Use only letters, digits, dots, hyphens and underscores in your username.',
  usernameTaken: 'This username is taken. Please choose another one.',
  signUp: {
    heading: 'Create an account',
    nameLabel: 'Name (optional)',
    button: 'Create account',
    haveAccount: 'Already have an account?',
    signIn: 'Sign in',
  },
  forgot: {
    heading: 'Reset your password',
    message: 'We will send a link to choose a new password to the email address of your account.',
    button: 'Send the link',
  },
  reset: {
    heading: 'Choose a new password',
    message: 'Afterwards, every device signed in to your account is signed out.',
    button: 'Save password',
  },
  change: {
    heading: 'Change your password',
    currentLabel: 'Current password',
    button: 'Change password',
    wrongCurrent: 'Your current password is not correct.',
    addHeading: 'Add a password',
    addMessage: 'Then you can also sign in with a password.',
    addButton: 'Add password',
    noVerifiedEmail: 'Your account needs a verified email address before you can add a password.',
    emailTaken: 'Another account already signs in with this email address and a password.',
  },
  sent: {
    signup: {
      heading: 'Check your email',
      message: 'We have sent an email to the address you entered. Follow it to finish creating your account.',
    },
    reset: {
      heading: 'Check your email',
      message:
        'If an account matches what you entered and has a verified email address, a link to choose a new password has been sent to it.',
    },
  },
  done: {
    reset: {
      heading: 'Password reset',
      message: 'Your new password is saved, and every device was signed out. Sign in with your new password.',
      link: 'Sign in',
    },
    changed: {
      heading: 'Password changed',
      message: 'Your new password is saved. Your other devices were signed out.',
      link: 'Continue',
    },
    added: {
      heading: 'Password added',
      message: 'From now on you can also sign in with your password.',
      link: 'Continue',
    },
  },
}

export const PASSWORD_MAIL = {
  signup: {
    subject: 'Finish creating your account at {host}',
    heading: 'Finish creating your account at {host}',
    message: 'Open the link to confirm your email address and create your account.',
    button: 'Create account',
    linkText: 'Open this link to create your account:',
    ignore: 'If you did not ask for this email, you can ignore it: no account is created without the link.',
  },
  // The address has an account already: its owner learns that someone tried, and how to get in.
  signupExists: {
    subject: 'Your account at {host}',
    heading: 'You already have an account at {host}',
    message:
      'Someone, probably you, tried to create an account at {host} with this email address, which already has one. No new account was created.',
    button: 'Sign in',
    linkText: 'Sign in here, or choose "Forgot your password?" there if you need a new one:',
    ignore: 'If it was not you, you can ignore this email: nothing was changed.',
  },
  reset: {
    subject: 'Reset your password at {host}',
    heading: 'Reset your password at {host}',
    message: 'Someone asked to reset the password of your account at {host}.',
    button: 'Choose a new password',
    linkText: 'Open this link to choose a new password:',
    ignore: 'If you did not ask for this email, you can ignore it: your password stays as it is.',
  },
}
