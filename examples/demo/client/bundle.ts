import { existsSync } from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

/**
 * Bundles the client page's script (app.jsx: React and `next-auth/react`) into memory, once, when
 * the demo starts: `npm install && npm start` needs no build step of its own, and the demo serves
 * the result from a route of its own, under its own origin, as the page's CSP allows.
 */
export async function buildClientBundle(): Promise<string> {
  const result = await build({
    entryPoints: [clientSource()],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    jsx: 'automatic',
    charset: 'utf8',
    logLevel: 'silent',
    define: {
      // React's production build; next-auth's client reads these at load and, in a browser, uses only
      // the base path the page gives SessionProvider.
      'process.env.NODE_ENV': '"production"',
      'process.env.NEXTAUTH_URL': 'undefined',
      'process.env.NEXTAUTH_URL_INTERNAL': 'undefined',
      'process.env.VERCEL_URL': 'undefined',
      'process.env.AUTH_URL': 'undefined',
    },
  })
  const [output] = result.outputFiles
  if (!output) throw new Error('esbuild produced no client bundle')
  return output.text
}

function clientSource(): string {
  // From examples/demo/client (the specs run the TypeScript) or dist/examples/demo/client (npm start).
  for (const candidate of [
    path.join(__dirname, 'app.jsx'),
    path.resolve(__dirname, '../../../../examples/demo/client/app.jsx'),
  ]) {
    if (existsSync(candidate)) return candidate
  }
  throw new Error('examples/demo/client/app.jsx not found')
}
