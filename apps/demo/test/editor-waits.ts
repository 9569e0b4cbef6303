/**
 * Waiting for what an editor page's debug handle says (`window.e2eColDemo` on the plain-text page,
 * `window.e2eColRich` on the rich-text page). The callbacks run in the page, so each reads the
 * handle itself.
 */
import type { Page } from 'playwright-core'

const WAIT = { timeout: 20_000 }

interface DemoHandle {
  text(): string
  status(): { connection: string; pending: number; loaded: boolean }
}
interface RichHandle {
  text(): string
}
type Handles = { e2eColDemo?: DemoHandle; e2eColRich?: RichHandle }

/** Until the page's text (plain or rich view) contains `needle`. */
export const waitForEditorText = (page: Page, needle: string, view: 'text' | 'rich' = 'text') =>
  page.waitForFunction(
    ([n, v]) => {
      const w = window as unknown as Handles
      return (v === 'text' ? w.e2eColDemo : w.e2eColRich)?.text().includes(n) === true
    },
    [needle, view] as const,
    WAIT,
  )

/** Until the plain-text page has loaded its document (from IndexedDB, with or without its sidecar). */
export const waitForLoaded = (page: Page) =>
  page.waitForFunction(() => (window as unknown as Handles).e2eColDemo?.status().loaded === true, undefined, WAIT)

/** Until the plain-text page is connected and its sidecar has every change. */
export const waitForAllSent = (page: Page) =>
  page.waitForFunction(
    () => {
      const s = (window as unknown as Handles).e2eColDemo?.status()
      return s?.connection === 'connected' && s.loaded && s.pending === 0
    },
    undefined,
    WAIT,
  )

/** The plain-text page's text. */
export const editorText = (page: Page): Promise<string | undefined> =>
  page.evaluate(() => (window as unknown as Handles).e2eColDemo?.text())

/** Until the plain-text editor is read-only (a viewer's) or editable, as `readOnly` says. */
export const waitForReadOnly = (page: Page, readOnly: boolean) =>
  page.waitForFunction(
    (want) => (window as unknown as { e2eColDemo?: { readOnly(): boolean } }).e2eColDemo?.readOnly() === want,
    readOnly,
    WAIT,
  )
