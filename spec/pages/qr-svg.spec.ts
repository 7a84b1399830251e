import jsQR from 'jsqr'
import { newTotpSecret, totpUri } from '../../lib/infra/crypto/totp'
import { qrSvg } from '../../lib/infra/pages/qr-svg'

/**
 * The QR code of the authenticator enrolment page: markup that a page may include as it is (one
 * <svg> of a rect and a path, no script, no text of the input), that a QR reader (jsQR, which knows
 * nothing of our encoder) reads back as the text it was made from, the same for the same text, and
 * null rather than an exception for text it cannot hold.
 */

/** Draws the SVG as a phone's camera would see it: `scale` pixels a module, RGBA. */
function rasterise(svg: string, scale = 4) {
  const side = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)![1])
  const width = side * scale
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255)
  for (const [, x, y, run] of svg.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g))
    for (let row = Number(y) * scale; row < (Number(y) + 1) * scale; row++)
      for (let col = Number(x) * scale; col < (Number(x) + Number(run)) * scale; col++)
        pixels.fill(0, (row * width + col) * 4, (row * width + col) * 4 + 3)
  return { pixels, width }
}

function read(svg: string): string | null {
  const { pixels, width } = rasterise(svg)
  return jsQR(pixels, width, width)?.data ?? null
}

describe('qrSvg', () => {
  const uri = totpUri({ secret: newTotpSecret(), issuer: 'Acme & Co', account: 'ada+mfa@example.com' })

  it('draws a code that a QR reader reads back as the otpauth URI', () => {
    expect(read(qrSvg(uri)!)).toBe(uri)
  })

  it('reads back non-ASCII text (UTF-8) too', () => {
    const text = totpUri({ secret: newTotpSecret(), issuer: 'Bäckerei Müller', account: 'zoë@example.com' })
    expect(read(qrSvg(text)!)).toBe(text)
  })

  it('is one <svg> of a white rect and a black path: no script, no text, no link, no entity', () => {
    const svg = qrSvg(uri)!
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 (\d+) \1" shape-rendering="crispEdges"><rect width="\1" height="\1" fill="#fff"\/><path fill="#000" d="(?:M\d+ \d+h\d+v1h-\d+z)+"\/><\/svg>$/,
    )
    expect(svg).not.toMatch(/script|href|on\w+=|&|<text|<foreignObject/i)
  })

  it('never carries the encoded text into the markup', () => {
    const hostile = '</svg><script>alert(1)</script>"\'&'
    const svg = qrSvg(hostile)!
    expect(svg).not.toContain('<script')
    expect(svg).not.toContain('alert')
    expect(read(svg)).toBe(hostile)
  })

  it('keeps a light margin of four modules around the code', () => {
    const svg = qrSvg(uri)!
    const side = Number(/viewBox="0 0 (\d+)/.exec(svg)![1])
    const runs = [...svg.matchAll(/M(\d+) (\d+)h(\d+)/g)].map(([, x, y, run]) => [Number(x), Number(y), Number(run)])
    expect(Math.min(...runs.map(([x]) => x!))).toBe(4)
    expect(Math.min(...runs.map(([, y]) => y!))).toBe(4)
    expect(Math.max(...runs.map(([x, , run]) => x! + run!))).toBe(side - 4)
    expect(Math.max(...runs.map(([, y]) => y! + 1))).toBe(side - 4)
  })

  it('is the same markup for the same text, and another for another', () => {
    expect(qrSvg(uri)).toBe(qrSvg(uri))
    expect(qrSvg(`${uri}x`)).not.toBe(qrSvg(uri))
  })

  it('answers null for text it will not encode, without throwing', () => {
    expect(qrSvg('')).toBeNull()
    expect(qrSvg('x'.repeat(1025))).toBeNull()
    expect(qrSvg('é'.repeat(513))).toBeNull() // 1,026 UTF-8 bytes
    expect(qrSvg('x'.repeat(100_000))).toBeNull()
    expect(qrSvg(undefined as unknown as string)).toBeNull()
    expect(qrSvg('x'.repeat(1024))).not.toBeNull()
  })
})
