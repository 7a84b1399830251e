import type { Response } from 'express'
import { renderView, STYLESHEET, type RenderOptions, type ViewData, type ViewName } from '../pages/render'
import type { Asset } from '../pages/assets'
import { noSniff, sendHtml } from './reply'
import type { Messages } from '../pages/messages'

/**
 * Renders a built-in page (lib/infra/pages) and writes it as `text/html; charset=utf-8`, with its CSP.
 * `Referrer-Policy: same-origin`: the page's address (a token in it, say) never leaves the site,
 * while its own form POSTs still carry their Origin (with `no-referrer`, browsers send
 * `Origin: null`, which the origin check would refuse).
 */
export function renderPage<V extends ViewName>(
  res: Response,
  status: number,
  view: V,
  data: ViewData[V],
  options: RenderOptions = {},
): void {
  const page = renderView(view, data, options)
  res.setHeader('Content-Security-Policy', page.csp)
  res.setHeader('Referrer-Policy', 'same-origin')
  // For browsers without CSP frame-ancestors: no page of ours is ever shown in a frame.
  res.setHeader('X-Frame-Options', 'DENY')
  sendHtml(res, status, page.html, page.noStore)
}

/** The error page for callers that know only a status and a code; `base` adds style and a sign-in link. */
export function renderErrorPage(
  res: Response,
  status: number,
  code: string,
  base?: string,
  messages?: Messages,
  theme?: RenderOptions['theme'],
): void {
  renderPage(res, status, 'error', base === undefined ? { code } : { code, base }, {
    ...(messages && { messages }),
    ...(theme && { theme }),
  })
}

/** `GET {base}/assets/style.css`: the pages' only stylesheet (with `theme`'s colours), cacheable for a day. */
export function sendStylesheet(res: Response, stylesheet: Asset = STYLESHEET): void {
  sendAsset(res, stylesheet, 'text/css; charset=utf-8')
}

/** A file of views/ (../pages/assets.ts), cacheable for a day, answered 304 when the browser has it. */
export function sendAsset(res: Response, asset: Asset, type: string): void {
  noSniff(res)
  res.setHeader('Cache-Control', 'public, max-age=86400')
  res.setHeader('ETag', asset.etag)
  if (matchesEtag(res.req?.headers['if-none-match'], asset.etag)) {
    res.statusCode = 304
    res.end()
    return
  }
  res.statusCode = 200
  res.setHeader('Content-Type', type)
  res.setHeader('Content-Length', asset.body.length)
  res.end(asset.body)
}

/** If-None-Match uses the weak comparison (RFC 9110, 13.1.2): `W/` is ignored. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const value = tag.trim()
    return value === '*' || value.replace(/^W\//, '') === etag
  })
}
