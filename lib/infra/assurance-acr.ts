/**
 * The ACR values of the assurance levels (NIST SP 800-63's, as OpenID profiles spell them): what
 * RFC 9470's challenge names in `acr_values`, and what an access token's `acr` says. Shared by the
 * service's `requireAuth()` and the APIs' `requireAccessToken()`, which must agree on them.
 */
export const AAL_ACR = Object.freeze({
  1: 'http://idmanagement.gov/ns/assurance/aal/1',
  2: 'http://idmanagement.gov/ns/assurance/aal/2',
})
