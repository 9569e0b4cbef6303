/** Launches Debian's Chromium through playwright-core (never a downloaded browser). */
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** Where Debian installs Chromium (`.ci/run` installs the `chromium` package); `E2E_COL_CHROMIUM` overrides it. */
export const CHROMIUM = process.env['E2E_COL_CHROMIUM'] ?? '/usr/bin/chromium'

/** True when the browser binary exists (a suite without it skips, printing why). */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM)
}

/**
 * A headless Chromium with a fresh profile per launch (playwright creates a temporary user-data
 * dir) and no background network (the test machine's network is closed).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}
