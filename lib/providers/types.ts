/** What every configured provider has; OAuth and e-mail providers add their own parts. */
export interface ProviderInfo {
  readonly id: string
  readonly name: string
  readonly type: 'oauth' | 'email'
}
