import type { Context } from '../context'
import type { BuiltInPage } from '../feature'

/**
 * What a built-in page's forms may reach, redirects included (Chromium applies CSP `form-action` to
 * the redirects after a form POST): this site, the trusted and CORS origins, the app's own pages and
 * `formActionOrigins`, and what each feature adds for that page (lib/core/feature.ts). Null when a
 * feature cannot know its part: the page then has no `form-action` rather than a button that
 * cannot work.
 */
export async function formActionOrigins(ctx: Context, page: BuiltInPage): Promise<readonly string[] | null> {
  const { config, features } = ctx.svc
  const origins = new Set<string>([...config.redirectOrigins, ...config.formActionOrigins])
  for (const own of Object.values(config.pages)) {
    if (typeof own === 'string' && !own.startsWith('/')) origins.add(new URL(own).origin)
  }
  for (const feature of features) {
    if (!feature.formActionOrigins) continue
    const added = await feature.formActionOrigins(ctx, page)
    if (added === null) return null
    for (const origin of added) origins.add(origin)
  }
  origins.delete(ctx.base.origin)
  return [...origins]
}
