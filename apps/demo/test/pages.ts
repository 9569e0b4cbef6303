/**
 * What the demo's tests do with a stack and its pages: a demo stack for a suite (with one page per
 * person for the browser suites), typing into an editor. Waiting for what a page shows is
 * `waitForShown` of `@e2e-col/test-browser`.
 */
import { launchChromium, waitForShown } from '@e2e-col/test-browser'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { startDemoStack, type DemoStack, type DemoStackOptions, type Who } from '../src/index.ts'

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

/** Sidecar settings over a toy that takes faults: Signal counts as away after two failed attempts and is probed again within 300 ms. */
export const SIDECAR_ENV_WITH_FAULTS: Readonly<Record<string, string>> = {
  E2E_COL_LOG_LEVEL: 'silent',
  E2E_COL_OFFLINE_PROBE_MAX_MS: '300',
  E2E_COL_SEND_ATTEMPTS: '2',
  E2E_COL_RETRY_BASE_MS: '20',
}

/** Two sidecars on any free ports over a toy that takes faults, with the page ({@link SIDECAR_ENV_WITH_FAULTS}). */
export const STACK_WITH_FAULTS: DemoStackOptions = {
  vitePort: 0,
  sidecarPorts: [0, 0],
  faults: true,
  sidecarEnv: SIDECAR_ENV_WITH_FAULTS,
}

/** The same without the page, for clients that run in Node. */
export const NODE_STACK_WITH_FAULTS: DemoStackOptions = {
  page: false,
  sidecarPorts: [0, 0],
  faults: true,
  sidecarEnv: SIDECAR_ENV_WITH_FAULTS,
}

/** A suite's demo stack, there once the suite's `beforeAll` ran. */
export interface SuiteStack {
  readonly stack: DemoStack
}

/**
 * Inside a `describe`: before its tests, starts the demo stack with `options`, then runs `started`
 * on it; after them, runs `closeFirst` (what the suite opened on the stack: clients, a browser),
 * then closes the stack.
 */
export function useDemoStack(
  options: DemoStackOptions,
  o: {
    readonly started?: (stack: DemoStack) => Promise<void>
    readonly closeFirst?: () => Promise<void>
    readonly timeoutMs?: number | undefined
  } = {},
): SuiteStack {
  let stack: DemoStack | undefined
  beforeAll(async () => {
    stack = await startDemoStack(options)
    await o.started?.(stack)
  }, o.timeoutMs)
  afterAll(async () => {
    await o.closeFirst?.()
    await stack?.close()
  })
  return {
    get stack(): DemoStack {
      if (stack === undefined) throw new Error('the demo stack is started in beforeAll')
      return stack
    },
  }
}

/** A suite's demo stack and each person's page, both there once the suite's `beforeAll` ran. */
export interface BrowserStack extends SuiteStack {
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
  let browser: Browser | undefined
  const pages = {} as Record<Who, Page>
  const run = useDemoStack(options, {
    timeoutMs: o.timeoutMs,
    started: async (stack) => {
      browser = await launchChromium()
      for (const who of ['alice', 'bob'] as const) {
        const page = await openPage(browser, who, o.viewport)
        await o.prepare?.(page, who, stack)
        pages[who] = page
      }
    },
    closeFirst: async () => {
      await browser?.close()
    },
  })
  return {
    get stack(): DemoStack {
      return run.stack
    },
    pages,
  }
}

/** Two sidecars on any free ports, no document yet, and the page: the home pages' suites. */
export const FRESH_STACK: DemoStackOptions = {
  vitePort: 0,
  sidecarPorts: [0, 0],
  demoDocument: false,
  sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' },
}

/** Opens a person's home page in their page and waits until it names them (by their number). */
export async function openHome(run: BrowserStack, who: Who): Promise<void> {
  await run.pages[who].goto(run.stack.homeLink(who))
  await waitForShown(run.pages[who], '#whoami', new RegExp(`\\${run.stack.number(who)}`))
}
