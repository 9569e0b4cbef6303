/**
 * Two people typing into the same paragraph at the same moment, in real Chromium: what the
 * concurrency tests of the demo's editors and of the bindings app share. Each person types one
 * letter of their own for a while; afterwards both pages must hold the same text with every letter
 * each typed, and neither sidecar may have dropped an update as written under someone else's id.
 */
import type { Page } from 'playwright-core'

/** How long both type, ms: long enough for many flush windows to cross, short enough for CI. */
export const TYPING_MS = 10_000
/** Characters per keyboard.type call, and the pause between two keys (a quick typist's pace). */
const CHUNK = 4
const KEY_DELAY_MS = 35

/** Types `letter` into the focused editor of `page` until `until` (ms since the epoch); the count typed. */
export async function typeUntil(page: Page, letter: string, until: number): Promise<number> {
  let typed = 0
  while (Date.now() < until) {
    await page.keyboard.type(letter.repeat(CHUNK), { delay: KEY_DELAY_MS })
    typed += CHUNK
  }
  return typed
}

/** How often `letter` occurs in `text`. */
export function count(text: string, letter: string): number {
  return text.split(letter).length - 1
}

/** The sum of a Prometheus counter's samples whose line starts with `sample` (0 when there is none). */
export async function counterAt(httpBase: string, sample: string): Promise<number> {
  const text = await (await fetch(`${httpBase}/metrics`)).text()
  return text
    .split('\n')
    .filter((line) => line.startsWith(sample))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)
}

/** The forged-author drops a sidecar counted. */
export const FORGED_AUTHOR = 'e2e_col_received_dropped_total{reason="forged-author"}'

export interface Typed {
  readonly alice: number
  readonly bob: number
}

/**
 * Polls both pages' text (read by `read`) until they are equal and hold `base` plus every letter
 * typed, or `ceilingMs` passes; then returns the last texts read (the caller asserts on them, so a
 * failure shows what each page holds).
 */
export async function settledTexts(
  pages: { alice: Page; bob: Page },
  read: (page: Page) => Promise<string>,
  want: { readonly letters: { alice: string; bob: string }; readonly base: Typed; readonly typed: Typed },
  ceilingMs = 60_000,
): Promise<{ alice: string; bob: string }> {
  const deadline = Date.now() + ceilingMs
  for (;;) {
    const [alice, bob] = await Promise.all([read(pages.alice), read(pages.bob)])
    const done =
      alice === bob &&
      count(alice, want.letters.alice) === want.base.alice + want.typed.alice &&
      count(alice, want.letters.bob) === want.base.bob + want.typed.bob
    if (done || Date.now() > deadline) return { alice, bob }
    await new Promise((resolve) => setTimeout(resolve, 100)) // polling for the outcome, not a fixed wait
  }
}
