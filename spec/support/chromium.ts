import { execFileSync } from 'node:child_process'
import { chromium, type Browser } from 'playwright-core'

/** Debian's Chromium (browsers cannot be downloaded here), headless, with no background traffic. */
export function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim()
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}
