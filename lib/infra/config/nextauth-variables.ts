/**
 * NextAuth's own environment variables (NEXTAUTH_URL, NEXTAUTH_SECRET, AUTH_URL, AUTH_SECRET) are
 * not read: the package has its own (SERVICE_AUTH_URL, SERVICE_AUTH_SECRET), so an app that sets
 * theirs alone gets an error saying so.
 */

/** NextAuth's own variables, when set: the app may expect them to work here. Their values are never shown. */
export function notRead(env: NodeJS.ProcessEnv, names: readonly string[]): string {
  const set = names.filter((name) => Boolean(env[name]))
  if (set.length === 0) return ''
  return `; ${set.join(' and ')} ${set.length === 1 ? 'is' : 'are'} NextAuth's and not read here`
}
