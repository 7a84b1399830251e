/**
 * `express-auth-service/testing`: the contract suites a store is held to, for the authors of
 * stores to run against their own (docs/session-stores.md). Not part of the package root: an app
 * never loads it at run time.
 */
export { describeSessionStoreContract, type SessionStoreLike } from './session-store'
export { describeVerificationStoreContract } from './verification-store'
export { describePasskeyStoreContract } from './passkey-store'
export { describeAccountStoreContract } from './account-store'
export type { TestFramework } from './types'
