import type { Messages } from './messages'

const ANDERES_KONTO = 'Versuchen Sie, sich mit einem anderen Konto anzumelden.'

/**
 * German, shipped as an example of a translation: `auth({ languages: { de } })`. A complete
 * `Messages`; an app's own translation may give only the texts it changes.
 */
export const de: Messages = {
  lang: 'de',
  titles: {
    signin: 'Anmelden',
    signout: 'Abmelden',
    error: 'Fehler',
    'verify-request': 'Prüfen Sie Ihre E-Mails',
    'email-confirm': 'Anmeldung fortsetzen',
    'password-signup': 'Konto erstellen',
    'password-forgot': 'Passwort zurücksetzen',
    'password-reset': 'Neues Passwort wählen',
    'password-change': 'Ihr Passwort',
    'password-sent': 'Prüfen Sie Ihre E-Mails',
    'password-done': 'Ihr Passwort ist gespeichert',
    mfa: 'Bestätigung in zwei Schritten',
    'mfa-setup': 'Bestätigung in zwei Schritten einrichten',
    'mfa-codes': 'Ihre Wiederherstellungscodes',
  },
  signin: {
    heading: 'Anmelden',
    withProvider: 'Mit {name} anmelden',
    emailLabel: 'E-Mail-Adresse',
    or: 'oder',
    withPasskey: 'Mit einem Passkey anmelden',
    passkeyFailed:
      'Die Anmeldung mit einem Passkey hat nicht geklappt. Versuchen Sie es erneut oder melden Sie sich anders an.',
    usernameLabel: 'Benutzername',
    passwordLabel: 'Passwort',
    withPassword: 'Anmelden',
    forgotPassword: 'Passwort vergessen?',
    createAccount: 'Konto erstellen',
  },
  signinAlerts: {
    Signin: ANDERES_KONTO,
    OAuthSignin: 'Der Anmeldedienst ist nicht erreichbar. Bitte versuchen Sie es in einigen Minuten erneut.',
    OAuthCallback: ANDERES_KONTO,
    OAuthCreateAccount: ANDERES_KONTO,
    EmailCreateAccount: ANDERES_KONTO,
    Callback: ANDERES_KONTO,
    OAuthAccountNotLinked: 'Bitte melden Sie sich mit dem Konto an, das Sie ursprünglich verwendet haben.',
    EmailSignin: 'Die E-Mail konnte nicht gesendet werden. Bitte versuchen Sie es erneut.',
    CredentialsSignin: 'Die Anmeldung ist fehlgeschlagen. Bitte prüfen Sie Ihre Angaben.',
    SessionRequired: 'Bitte melden Sie sich an, um diese Seite zu sehen.',
    AccountAlreadyLinked:
      'Dieses Konto ist bereits mit einem anderen Benutzer verknüpft. Melden Sie sich damit an, um diesen Benutzer zu verwenden, oder verknüpfen Sie ein anderes.',
    ReauthRequired: 'Melden Sie sich zu Ihrer Sicherheit erneut an, um fortzufahren.',
    MissingCSRF: 'Das Anmeldeformular ist abgelaufen. Bitte versuchen Sie es erneut.',
    Default: 'Die Anmeldung ist nicht möglich.',
  },
  signout: {
    heading: 'Abmelden',
    question: 'Möchten Sie sich wirklich abmelden?',
    button: 'Abmelden',
  },
  error: { backToSignIn: 'Zurück zur Anmeldung' },
  errors: {
    Configuration: {
      heading: 'Serverfehler',
      message: 'Die Konfiguration des Servers ist fehlerhaft. Näheres steht in den Protokollen des Servers.',
    },
    AccessDenied: { heading: 'Zugriff verweigert', message: 'Sie sind nicht berechtigt, sich anzumelden.' },
    Verification: {
      heading: 'Anmeldung nicht möglich',
      message: 'Der Anmeldelink ist nicht mehr gültig. Er wurde vielleicht schon verwendet oder ist abgelaufen.',
      link: 'Anmelden',
    },
    Default: { heading: 'Fehler', message: 'Etwas ist schiefgegangen. Bitte versuchen Sie es erneut.' },
    LastSignInMethod: {
      heading: 'Entfernen nicht möglich',
      message: 'Dies ist die letzte Möglichkeit, sich bei Ihrem Konto anzumelden. Fügen Sie zuerst eine weitere hinzu.',
    },
    NotFound: { heading: 'Seite nicht gefunden', message: 'Unter dieser Adresse gibt es keine Seite.' },
    MethodNotAllowed: { heading: 'Nicht erlaubt', message: 'Diese Seite kann so nicht verwendet werden.' },
    PayloadTooLarge: { heading: 'Anfrage zu groß', message: 'Die gesendeten Daten waren zu groß.' },
    UnsupportedMediaType: {
      heading: 'Anfrage nicht unterstützt',
      message: 'Die gesendeten Daten haben ein Format, das dieser Dienst nicht annimmt.',
    },
    InvalidBody: { heading: 'Ungültige Anfrage', message: 'Die gesendeten Daten konnten nicht gelesen werden.' },
    InvalidHost: { heading: 'Ungültige Anfrage', message: 'Die Adresse dieser Anfrage ist ungültig.' },
    RequestTimeout: {
      heading: 'Zeitüberschreitung',
      message: 'Die gesendeten Daten kamen zu langsam an. Bitte versuchen Sie es erneut.',
    },
    TooManyRequests: {
      heading: 'Zu viele Anfragen',
      message: 'Bitte warten Sie einen Moment und versuchen Sie es erneut.',
    },
    ServiceUnavailable: {
      heading: 'Dienst nicht verfügbar',
      message:
        'Die Anmeldung ist gerade nicht verfügbar. Es wurde nichts geändert. Bitte versuchen Sie es gleich erneut.',
    },
  },
  verifyRequest: {
    heading: 'Prüfen Sie Ihre E-Mails',
    message: 'Ein Anmeldelink wurde an Ihre E-Mail-Adresse gesendet.',
    link: 'Zu {site}',
  },
  emailConfirm: {
    heading: 'Anmelden',
    message: 'Weiter anmelden als {email}',
    button: 'Anmelden',
  },
  email: {
    subject: 'Bei {host} anmelden',
    heading: 'Bei {host} anmelden',
    button: 'Anmelden',
    linkText: 'Öffnen Sie diesen Link, um sich anzumelden:',
    ignore:
      'Wenn Sie diese E-Mail nicht angefordert haben, können Sie sie ignorieren: Ohne den Link kann sich niemand anmelden.',
  },
  password: {
    newPasswordLabel: 'Neues Passwort',
    hint: 'Mindestens {min}, höchstens {max} Zeichen. Einige Wörter, die nichts miteinander zu tun haben, ergeben ein starkes Passwort, das man sich leicht merkt.',
    rejected: 'Dieses Passwort kann nicht verwendet werden:',
    reasons: {
      tooShort: 'Es hat weniger als {min} Zeichen.',
      tooLong: 'Es hat mehr als {max} Zeichen.',
      common: 'Es gehört zu den häufigsten Passwörtern.',
      containsIdentifier: 'Es enthält Ihre E-Mail-Adresse oder Ihren Benutzernamen.',
      containsAppName: 'Es enthält den Namen dieses Dienstes.',
      breached: 'Es ist bei einem Datenleck bekannt geworden, daher probieren Angreifer es zuerst.',
      unverifiable:
        'Es konnte gerade nicht mit bekannten Datenlecks abgeglichen werden. Bitte versuchen Sie es in einigen Minuten erneut.',
    },
    invalidEmail: 'Geben Sie eine gültige E-Mail-Adresse ein.',
    invalidUsername: 'Verwenden Sie im Benutzernamen nur Buchstaben, Ziffern, Punkte, Bindestriche und Unterstriche.',
    usernameTaken: 'Dieser Benutzername ist vergeben. Bitte wählen Sie einen anderen.',
    signUp: {
      heading: 'Konto erstellen',
      nameLabel: 'Name (optional)',
      button: 'Konto erstellen',
      haveAccount: 'Sie haben schon ein Konto?',
      signIn: 'Anmelden',
    },
    forgot: {
      heading: 'Passwort zurücksetzen',
      message: 'Wir senden einen Link, mit dem Sie ein neues Passwort wählen, an die E-Mail-Adresse Ihres Kontos.',
      button: 'Link senden',
    },
    reset: {
      heading: 'Neues Passwort wählen',
      message: 'Danach werden alle Geräte abgemeldet, die bei Ihrem Konto angemeldet sind.',
      button: 'Passwort speichern',
    },
    change: {
      heading: 'Passwort ändern',
      currentLabel: 'Aktuelles Passwort',
      button: 'Passwort ändern',
      wrongCurrent: 'Ihr aktuelles Passwort ist nicht richtig.',
      addHeading: 'Passwort hinzufügen',
      addMessage: 'Danach können Sie sich auch mit einem Passwort anmelden.',
      addButton: 'Passwort hinzufügen',
      noVerifiedEmail: 'Ihr Konto braucht eine bestätigte E-Mail-Adresse, bevor Sie ein Passwort hinzufügen können.',
      emailTaken: 'Mit dieser E-Mail-Adresse und einem Passwort meldet sich bereits ein anderes Konto an.',
    },
    sent: {
      signup: {
        heading: 'Prüfen Sie Ihre E-Mails',
        message:
          'Wir haben eine E-Mail an die angegebene Adresse gesendet. Folgen Sie ihr, um die Erstellung Ihres Kontos abzuschließen.',
      },
      reset: {
        heading: 'Prüfen Sie Ihre E-Mails',
        message:
          'Wenn ein Konto zu Ihrer Angabe passt und eine bestätigte E-Mail-Adresse hat, wurde ein Link zum Wählen eines neuen Passworts an sie gesendet.',
      },
    },
    done: {
      reset: {
        heading: 'Passwort zurückgesetzt',
        message:
          'Ihr neues Passwort ist gespeichert, und alle Geräte wurden abgemeldet. Melden Sie sich mit Ihrem neuen Passwort an.',
        link: 'Anmelden',
      },
      changed: {
        heading: 'Passwort geändert',
        message: 'Ihr neues Passwort ist gespeichert. Ihre anderen Geräte wurden abgemeldet.',
        link: 'Weiter',
      },
      added: {
        heading: 'Passwort hinzugefügt',
        message: 'Ab jetzt können Sie sich auch mit Ihrem Passwort anmelden.',
        link: 'Weiter',
      },
    },
  },
  passwordMail: {
    signup: {
      subject: 'Kontoerstellung bei {host} abschließen',
      heading: 'Kontoerstellung bei {host} abschließen',
      message: 'Öffnen Sie den Link, um Ihre E-Mail-Adresse zu bestätigen und Ihr Konto zu erstellen.',
      button: 'Konto erstellen',
      linkText: 'Öffnen Sie diesen Link, um Ihr Konto zu erstellen:',
      ignore:
        'Wenn Sie diese E-Mail nicht angefordert haben, können Sie sie ignorieren: Ohne den Link wird kein Konto erstellt.',
    },
    signupExists: {
      subject: 'Ihr Konto bei {host}',
      heading: 'Sie haben bereits ein Konto bei {host}',
      message:
        'Jemand, wahrscheinlich Sie, wollte bei {host} ein Konto mit dieser E-Mail-Adresse erstellen, die bereits eines hat. Es wurde kein neues Konto erstellt.',
      button: 'Anmelden',
      linkText: 'Melden Sie sich hier an, oder wählen Sie dort „Passwort vergessen?“, wenn Sie ein neues brauchen:',
      ignore: 'Wenn Sie es nicht waren, können Sie diese E-Mail ignorieren: Es wurde nichts geändert.',
    },
    reset: {
      subject: 'Passwort bei {host} zurücksetzen',
      heading: 'Passwort bei {host} zurücksetzen',
      message: 'Jemand hat angefordert, das Passwort Ihres Kontos bei {host} zurückzusetzen.',
      button: 'Neues Passwort wählen',
      linkText: 'Öffnen Sie diesen Link, um ein neues Passwort zu wählen:',
      ignore:
        'Wenn Sie diese E-Mail nicht angefordert haben, können Sie sie ignorieren: Ihr Passwort bleibt, wie es ist.',
    },
  },
  mfa: {
    heading: 'Bestätigung in zwei Schritten',
    message: 'Geben Sie den 6-stelligen Code aus Ihrer Authenticator-App ein.',
    codeLabel: 'Code aus Ihrer Authenticator-App',
    button: 'Bestätigen',
    useRecoveryCode: 'Einen Wiederherstellungscode verwenden',
    recoveryLabel: 'Wiederherstellungscode',
    recoveryButton: 'Wiederherstellungscode bestätigen',
    withPasskey: 'Einen Passkey verwenden',
    passkeyFailed: 'Dieser Passkey hat nicht funktioniert. Versuchen Sie es erneut oder verwenden Sie einen Code.',
    wrong: 'Dieser Code hat nicht funktioniert.',
    ended: 'Zu viele falsche Codes: Melden Sie sich erneut an.',
    signIn: 'Anmelden',
    setup: {
      heading: 'Authenticator-App einrichten',
      scan: 'Scannen Sie diesen QR-Code mit Ihrer Authenticator-App.',
      manual: 'Oder geben Sie diesen Schlüssel von Hand in der App ein:',
      codeLabel: 'Der 6-stellige Code, den die App anzeigt',
      button: 'Einschalten',
    },
    codes: {
      heading: 'Ihre Wiederherstellungscodes',
      message:
        'Jeder Code funktioniert einmal, anstelle eines Codes aus Ihrer Authenticator-App. Bewahren Sie sie sicher auf: Sie werden nicht noch einmal angezeigt.',
      continue: 'Weiter',
    },
  },
}
