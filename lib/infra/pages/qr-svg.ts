import { toString } from 'qrcode'

/**
 * A QR code of `text` (an `otpauth://` URI) as an SVG document, drawn on the server by `qrcode`:
 * the setup page shows it without any script. Error correction M, the quiet zone of 4 modules
 * readers expect. Only our own URIs are drawn (a few hundred characters).
 */
export async function qrSvg(text: string): Promise<string> {
  return toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 })
}
