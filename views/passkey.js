// The built-in pages' passkey ceremonies, served from {base}/assets/passkey.js: the page's only
// script, with no library and no bundler. On the sign-in page, a form marked `data-passkey-options`
// is a passkey form: its button (and, with `data-passkey-autofill`, the browser's autofill of the
// page's `autocomplete="… webauthn"` field) asks the service for options, runs the browser's
// ceremony, and posts the answer as NextAuth's passkey client does (`action`, `data`), with the
// form's CSRF token. On the second-factor page, a form marked `data-mfa-passkey` (the options' URL)
// is the passkey as the second step: its answer is fetched to the form's action, and the page goes
// to the `{ url }` it answers (the session's callbackUrl, or this page saying what went wrong).
'use strict'
;(function () {
  var forms = document.querySelectorAll('form[data-passkey-options]')
  var steps = document.querySelectorAll('form[data-mfa-passkey]')
  if (forms.length + steps.length === 0 || !window.PublicKeyCredential || !navigator.credentials) return

  function toBuffer(text) {
    var base64 = text.replace(/-/g, '+').replace(/_/g, '/')
    var binary = atob(base64 + '==='.slice((base64.length + 3) % 4))
    var bytes = new Uint8Array(binary.length)
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    return bytes.buffer
  }

  function toText(buffer) {
    var bytes = new Uint8Array(buffer)
    var binary = ''
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i])
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  }

  function withIds(list) {
    return (list || []).map(function (item) {
      return { type: item.type, id: toBuffer(item.id), transports: item.transports }
    })
  }

  function creationOptions(json) {
    var options = Object.assign({}, json, { challenge: toBuffer(json.challenge) })
    options.user = Object.assign({}, json.user, { id: toBuffer(json.user.id) })
    options.excludeCredentials = withIds(json.excludeCredentials)
    return options
  }

  function requestOptions(json) {
    var options = Object.assign({}, json, { challenge: toBuffer(json.challenge) })
    if (json.allowCredentials) options.allowCredentials = withIds(json.allowCredentials)
    return options
  }

  function answerOf(credential) {
    var response = credential.response
    var json = {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      response: { clientDataJSON: toText(response.clientDataJSON) },
    }
    if (response.attestationObject) {
      json.response.attestationObject = toText(response.attestationObject)
      json.response.transports = response.getTransports ? response.getTransports() : []
    } else {
      json.response.authenticatorData = toText(response.authenticatorData)
      json.response.signature = toText(response.signature)
      if (response.userHandle) json.response.userHandle = toText(response.userHandle)
    }
    return json
  }

  // Null when the user is sent to sign in again first: a session signed in too long ago adds no
  // passkey (`401 { error: 'SessionRequired', url }`), and the sign-in page comes back to this one.
  function fetchOptions(form, action) {
    var url = form.getAttribute('data-passkey-options') + '?action=' + action
    if (action === 'register') url += '&callbackUrl=' + encodeURIComponent(window.location.href)
    return fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } }).then(function (res) {
      if (res.status === 401 && action === 'register') return res.json().then(signInAgain)
      if (!res.ok) throw new Error('options ' + res.status)
      return res.json()
    })
  }

  function signInAgain(body) {
    if (!body || body.error !== 'SessionRequired' || typeof body.url !== 'string') throw new Error('options 401')
    window.location.assign(body.url)
    return null
  }

  // A page of the app's own may leave the CSRF token out (`data-passkey-csrf` names {base}/csrf):
  // it is fetched just before the answer is posted.
  function csrfToken(form) {
    var field = form.elements.namedItem('csrfToken')
    var url = form.getAttribute('data-passkey-csrf')
    if (field.value || !url) return Promise.resolve()
    return fetch(url, { credentials: 'same-origin' })
      .then(function (res) {
        return res.json()
      })
      .then(function (body) {
        field.value = body.csrfToken
      })
  }

  function post(form, action, credential) {
    form.elements.namedItem('action').value = action
    form.elements.namedItem('data').value = JSON.stringify(answerOf(credential))
    return csrfToken(form).then(function () {
      form.submit()
    })
  }

  function showError(form) {
    var alert = form.querySelector('[data-passkey-error]')
    if (alert) alert.hidden = false
  }

  var autofill = null

  function ceremony(form, mediation) {
    var action = form.getAttribute('data-passkey-action') || 'authenticate'
    return fetchOptions(form, action).then(function (answer) {
      if (answer === null) return null
      if (answer.action === 'register') {
        return navigator.credentials.create({ publicKey: creationOptions(answer.options) })
      }
      var request = { publicKey: requestOptions(answer.options) }
      if (mediation) {
        autofill = new AbortController()
        request.mediation = mediation
        request.signal = autofill.signal
      }
      return navigator.credentials.get(request)
    }).then(function (credential) {
      if (credential) return post(form, answerAction(credential), credential)
    })
  }

  function answerAction(credential) {
    return credential.response.attestationObject ? 'register' : 'authenticate'
  }

  // The second step: every answer is `{ url }` (JSON mode), followed whatever it says; a ceremony the
  // user cancelled posts nothing (and counts as no try) and shows the form's alert.
  function asJson(res) {
    return res.json().then(function (body) {
      if (body && typeof body.url === 'string') return body
      if (!res.ok || !body || !body.options) throw new Error('answer ' + res.status)
      return body
    })
  }

  function secondStep(form) {
    var json = { credentials: 'same-origin', headers: { Accept: 'application/json', 'X-Auth-Return-Redirect': '1' } }
    return fetch(form.getAttribute('data-mfa-passkey'), json)
      .then(asJson)
      .then(function (body) {
        if (body.url) return body
        return navigator.credentials.get({ publicKey: requestOptions(body.options) }).then(function (credential) {
          var fields = new URLSearchParams(new FormData(form))
          fields.set('data', JSON.stringify(answerOf(credential)))
          return fetch(form.action, Object.assign({ method: 'POST', body: fields }, json)).then(asJson)
        })
      })
      .then(function (body) {
        window.location.assign(body.url)
      })
  }

  Array.prototype.forEach.call(steps, function (form) {
    form.hidden = false
    form.addEventListener('submit', function (event) {
      event.preventDefault()
      secondStep(form).catch(function () {
        showError(form)
      })
    })
  })

  Array.prototype.forEach.call(forms, function (form) {
    form.hidden = false
    form.addEventListener('submit', function (event) {
      event.preventDefault()
      if (autofill) autofill.abort()
      autofill = null
      ceremony(form, null).catch(function () {
        showError(form)
      })
    })
    var conditional = window.PublicKeyCredential.isConditionalMediationAvailable
    if (form.hasAttribute('data-passkey-autofill') && conditional) {
      conditional.call(window.PublicKeyCredential).then(function (available) {
        // Aborted when the button starts its own ceremony: not an error to show.
        if (available) ceremony(form, 'conditional').catch(function () {})
      })
    }
  })
})()
