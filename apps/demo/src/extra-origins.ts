/** The page origins `npm start` lets its sidecars accept besides the demo's own. */

/** An E2E_COL_ALLOWED_ORIGINS entry that is not a page origin. */
export class ExtraOriginError extends Error {
  readonly code = 'DEMO_BAD_ORIGIN'
  constructor(message: string) {
    super(message)
    this.name = 'ExtraOriginError'
  }
}

/**
 * Reads a comma-separated list of page origins (`http://127.0.0.1:3000, https://app.example`), as
 * `npm start` takes them from E2E_COL_ALLOWED_ORIGINS.
 * @throws ExtraOriginError (DEMO_BAD_ORIGIN) naming the entry that is not an http(s) origin
 */
export function parseExtraOrigins(text: string | undefined): string[] {
  const entries = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  return entries.map((entry) => {
    let url: URL | undefined
    try {
      url = new URL(entry)
    } catch {
      url = undefined
    }
    if (
      url === undefined ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.origin !== entry.replace(/\/$/, '')
    )
      throw new ExtraOriginError(
        `E2E_COL_ALLOWED_ORIGINS: ${JSON.stringify(entry.slice(0, 100))} is not a page origin like http://127.0.0.1:3000`,
      )
    return url.origin
  })
}
