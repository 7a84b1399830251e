import type { BaseUrl } from './base-url'

/** A provider's two absolute URLs, as `GET /providers` lists them and OAuth's `redirect_uri` uses them. */
export function providerUrls(base: BaseUrl, id: string): { signinUrl: string; callbackUrl: string } {
  return { signinUrl: `${base.href}/signin/${id}`, callbackUrl: `${base.href}/callback/${id}` }
}
