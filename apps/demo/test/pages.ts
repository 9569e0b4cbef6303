/**
 * What the browser tests do with pages: a demo stack with one page per person for a suite, typing
 * into an editor, waiting for what a page shows.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { startDemoStack, type DemoStack, type DemoStackOptions, type Who } from '../src/index.ts'
import { launchChromium } from './browser.ts'

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

/**
 * Two sidecars on any free ports over a toy that takes faults (network loss, failed sends); the
 * sidecars count Signal as away after two failed attempts and probe again within 300 ms.
 */
export const STACK_WITH_FAULTS: DemoStackOptions = {
  vitePort: 0,
  sidecarPorts: [0, 0],
  faults: true,
  sidecarEnv: {
    E2E_COL_LOG_LEVEL: 'silent',
    E2E_COL_OFFLINE_PROBE_MAX_MS: '300',
    E2E_COL_SEND_ATTEMPTS: '2',
    E2E_COL_RETRY_BASE_MS: '20',
  },
}

/** A suite's demo stack and each person's page, both there once the suite's `beforeAll` ran. */
export interface BrowserStack {
  readonly stack: DemoStack
  readonly pages: Record<Who, Page>
}

/**
 * Inside a `describe`: before its tests, starts the demo stack with `options` and a Chromium with
 * one page per person (`prepare` runs on each in turn, Alice first, e.g. to open and wait for it);
 * after them, closes both.
 */
export function useBrowserStack(
  options: DemoStackOptions,
  o: {
    readonly viewport?: { width: number; height: number }
    readonly prepare?: (page: Page, who: Who, stack: DemoStack) => Promise<void>
    readonly timeoutMs?: number
  } = {},
): BrowserStack {
  let stack: DemoStack | undefined
  let browser: Browser | undefined
  const pages = {} as Record<Who, Page>
  beforeAll(async () => {
    stack = await startDemoStack(options)
    browser = await launchChromium()
    for (const who of ['alice', 'bob'] as const) {
      const page = await openPage(browser, who, o.viewport)
      await o.prepare?.(page, who, stack)
      pages[who] = page
    }
  }, o.timeoutMs)
  afterAll(async () => {
    await browser?.close()
    await stack?.close()
  })
  return {
    get stack(): DemoStack {
      if (stack === undefined) throw new Error('the demo stack is started in beforeAll')
      return stack
    },
    pages,
  }
}
