/** Waiting for what a page shows, as a person reads it, and saying what it showed when it never comes. */
import type { Page } from 'playwright-core'

/** How long a page wait gives the awaited state by default. */
export const PAGE_WAIT_MS = 20_000

/**
 * Waits until the visible text of the first element matching `selector` matches `pattern`; after
 * `timeoutMs` fails saying what the element showed instead.
 */
export async function waitForShown(
  page: Page,
  selector: string,
  pattern: RegExp,
  timeoutMs: number = PAGE_WAIT_MS,
): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, source, flags]) => new RegExp(source, flags).test(document.querySelector(sel)?.textContent ?? ''),
      [selector, pattern.source, pattern.flags] as const,
      { timeout: timeoutMs },
    )
  } catch (error) {
    const shown = await page
      .locator(selector)
      .first()
      .textContent()
      .catch(() => null)
    throw new Error(`${selector} shows ${JSON.stringify(shown)}, expected ${pattern}`, { cause: error })
  }
}
