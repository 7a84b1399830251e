import type { BitMatrix } from 'qrcode'
import { qrcodeEncoder } from '../util/lazy'

/**
 * A QR code as inline SVG, drawn on the server so that a page shows it under the strict CSP with no
 * script and no image request: the authenticator-app enrolment page's otpauth:// URI, which the
 * phone's camera reads. `qrcode` encodes (version, mask, error correction); the markup is written
 * here from its modules and holds only numbers and fixed text, never any of the encoded text, so it
 * is safe to output unescaped. Its name for screen readers is the page's to give (it is language-neutral).
 */

/**
 * The most UTF-8 bytes encoded. An otpauth URI is about 100 to 300; a QR code holding much more
 * grows so dense that a phone on a screen reads it poorly, and the largest holds 2,331 at level M.
 */
const MAX_BYTES = 1024
/** The light margin around the code, in modules: ISO/IEC 18004 asks for 4, and readers need it. */
const QUIET_ZONE = 4

/**
 * An `<svg>` element (no XML declaration: it goes inside HTML) for `text`, or null for an empty
 * text, one over MAX_BYTES, or anything the encoder refuses. The same text always gives the same
 * markup. Dark on white whatever the page's theme: readers expect dark modules on a light ground.
 * Error correction M (15 % of the code may be lost), the level most readers are tested at.
 */
export function qrSvg(text: string): string | null {
  if (typeof text !== 'string' || text.length === 0 || Buffer.byteLength(text, 'utf8') > MAX_BYTES) return null
  let modules: BitMatrix
  try {
    modules = qrcodeEncoder().create(text, { errorCorrectionLevel: 'M' }).modules
  } catch {
    return null
  }
  const side = modules.size + 2 * QUIET_ZONE
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/>` +
    `<path fill="#000" d="${darkRuns(modules)}"/></svg>`
  )
}

/** The dark modules as one path: a rectangle one module high for each run of dark modules in a row. */
function darkRuns(modules: BitMatrix): string {
  let d = ''
  for (let row = 0; row < modules.size; row++) {
    let col = 0
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col++
        continue
      }
      const start = col
      while (col < modules.size && modules.get(row, col)) col++
      d += `M${start + QUIET_ZONE} ${row + QUIET_ZONE}h${col - start}v1h-${col - start}z`
    }
  }
  return d
}
