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
  },
  signin: {
    heading: 'Anmelden',
    withProvider: 'Mit {name} anmelden',
    emailLabel: 'E-Mail-Adresse',
    or: 'oder',
    withPasskey: 'Mit einem Passkey anmelden',
    passkeyFailed:
      'Die Anmeldung mit einem Passkey hat nicht geklappt. Versuchen Sie es erneut oder melden Sie sich anders an.',
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
}
