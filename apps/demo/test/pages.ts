/** What the browser tests do with a page: open one per person, type into its editor, wait for what it shows. */
import type { Browser, Page } from 'playwright-core'
import type { Who } from '../src/index.ts'

/** How long a page wait gives the awaited state before it fails saying what the page showed. */
export const PAGE_WAIT_MS = 20_000

/** A page in its own browser context (its own IndexedDB, as on another machine); page errors are printed. */
export async function openPage(
  browser: Browser,
  who: Who,
  viewport: { width: number; height: number } = { width: 900, height: 640 },
): Promise<Page> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  page.on('pageerror', (error) => console.error(`[${who} page error]`, error))
  return page
}

/** Types `text` at the end of the editor `editorSelector` (`.cm-content`, `.ProseMirror`), as a person would. */
export async function typeAtEnd(page: Page, editorSelector: string, text: string): Promise<void> {
  await page.click(editorSelector)
  await page.keyboard.press('Control+End')
  await page.keyboard.type(text)
}

/** Waits until the element's visible text matches (what a person reads on the page), saying what it showed instead. */
export async function waitForShown(page: Page, selector: string, pattern: RegExp): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, source, flags]) => new RegExp(source, flags).test(document.querySelector(sel)?.textContent ?? ''),
      [selector, pattern.source, pattern.flags] as const,
      { timeout: PAGE_WAIT_MS },
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
