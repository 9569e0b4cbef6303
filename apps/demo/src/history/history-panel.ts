/**
 * The History panel of both editor pages: the versions with who and when, a read-only preview of
 * the one chosen with its differences from now marked (drawn by the page's own {@link Preview}),
 * "Restore this version", "Undo Bob's changes since …" (an editor's only: a viewer reads why
 * instead, and the sidecar refuses them with HISTORY_NOT_EDITOR), and the note for a person who
 * joined later. An undo is previewed first: the document as it would leave it, marked against now,
 * done only once confirmed. Every word comes from history-text.ts; names are set as text only.
 */
import { DocsApiError } from '../docs-client.ts'
import { element } from '../start-up.ts'
import type { HistoryClient } from './history-client.ts'
import {
  historyErrorText,
  joinedLaterText,
  undoOffers,
  VIEWER_HISTORY_TEXT,
  versionText,
  whenText,
  type Clock,
  type UndoOffer,
  type VersionItem,
} from './history-text.ts'

/** How a page shows a version: in its own editor kind, read-only, the differences from now marked. */
export interface Preview {
  /** Shows the version (a Yjs update of the whole document). @throws when the bytes are not a document */
  show(update: Uint8Array): void
  hide(): void
}

export interface HistoryPanelOptions {
  readonly client: HistoryClient
  /** The page's preview, drawn in `parent` (the panel's preview box). */
  preview(parent: HTMLElement): Preview
  /** Extra classes of the preview box (the rich-text page's editor styles). */
  readonly previewClass?: string
  readonly clock: Clock
  readonly now: () => number
  /** The review's audit (suggestions, decisions, comments), newest first; listed under the versions. */
  readonly audit?: () => Promise<readonly { readonly at: number; readonly text: string }[]>
}

/** The clock of the person's own locale: "10:42:07", "2 Dec". */
export const localClock: Clock = {
  // Seconds too: two versions in one minute are told apart.
  time: (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }),
  day: (ms) => new Date(ms).toLocaleDateString([], { day: 'numeric', month: 'short', year: 'numeric' }),
}

const codeOf = (error: unknown): string => (error instanceof DocsApiError ? error.code : 'BAD_VERSION')

/** Shows `text` in one of the panel's lines, or hides the line. */
const say = (id: 'history-problem' | 'history-done' | 'history-note', text: string | undefined): void => {
  const line = element(id)
  line.textContent = text ?? ''
  line.hidden = text === undefined
}

const failed = (error: unknown): void => say('history-problem', historyErrorText(codeOf(error)))

const NO_VERSIONS = 'No versions yet: one is kept a few seconds after each spell of edits.'
// While the open panel lists nothing, it asks again: the first version appears without Refresh.
const EMPTY_RECHECK_MS = 2_000

// Static markup only: every text from the sidecar (names above all) is set with textContent.
const MARKUP = `
  <div class="history-head"><h2>History</h2><button id="history-refresh" type="button">Refresh</button></div>
  <p id="history-note" class="advice" hidden></p>
  <p id="history-problem" class="problem" role="alert" hidden></p>
  <p id="history-done" class="history-done" role="status" hidden></p>
  <ol id="history-list" class="history-list"></ol>
  <h3 id="history-review-head" hidden>Suggestions and comments</h3>
  <ol id="history-review" class="history-review"></ol>
  <div id="history-chosen" class="history-chosen" hidden>
    <p id="history-chosen-text"></p>
    <div id="history-preview" class="editor history-preview"></div>
    <p id="history-viewer" class="advice history-viewer"></p>
    <div class="history-actions">
      <button id="history-restore" type="button">Restore this version</button>
      <span id="history-undo"></span>
      <button id="history-confirm" type="button" hidden></button>
      <button id="history-close" type="button">Close the preview</button>
    </div>
  </div>`

/** Lists the review's audit under the versions, each line with its time. */
function showAudit(lines: readonly { readonly at: number; readonly text: string }[], now: number, clock: Clock): void {
  element('history-review-head').hidden = lines.length === 0
  element('history-review').replaceChildren(
    ...lines.map((line) => {
      const item = document.createElement('li')
      item.className = 'history-review-line'
      item.textContent = `${whenText(line.at, now, clock)} · ${line.text}`
      return item
    }),
  )
}

/** Fills the page's `#history` section and wires it to the `#history-open` button. */
export function mountHistoryPanel(o: HistoryPanelOptions): void {
  const panel = element('history')
  panel.innerHTML = MARKUP
  const box = element('history-preview')
  if (o.previewClass !== undefined) box.classList.add(o.previewClass)
  const preview = o.preview(box)
  const list = element('history-list')
  const chosen = element('history-chosen')
  const undo = element('history-undo')
  // Shown instead of Restore and Undo while the page's role is viewer (page.css, body[data-role]).
  element('history-viewer').textContent = VIEWER_HISTORY_TEXT
  let versions: VersionItem[] = []
  let current: VersionItem | undefined

  const confirm = element('history-confirm') as HTMLButtonElement
  /** The undo being previewed, done when confirmed. */
  let pending: UndoOffer | undefined
  let recheck: ReturnType<typeof setTimeout> | undefined

  function close(): void {
    current = undefined
    pending = undefined
    confirm.hidden = true
    chosen.hidden = true
    preview.hide()
    for (const b of list.querySelectorAll('button')) b.removeAttribute('aria-current')
  }

  async function load(): Promise<void> {
    clearTimeout(recheck)
    say('history-problem', undefined)
    try {
      const listed = await o.client.versions()
      versions = listed.versions
      const note = joinedLaterText(versions, listed.complete, o.clock)
      say('history-note', note)
      list.replaceChildren(
        ...versions.map((v, i) => {
          const item = document.createElement('li')
          const button = document.createElement('button')
          button.type = 'button'
          button.className = 'history-version'
          button.textContent = versionText(v, o.now(), o.clock, versions[i + 1])
          button.addEventListener('click', () => void choose(i, button))
          item.append(button)
          return item
        }),
      )
      const done = element('history-done')
      if (versions.length > 0 && done.textContent === NO_VERSIONS) say('history-done', undefined)
      if (versions.length === 0) say('history-done', NO_VERSIONS)
      if (versions.length === 0 && !panel.hidden) recheck = setTimeout(() => void load(), EMPTY_RECHECK_MS)
    } catch (error) {
      failed(error)
    }
    if (o.audit !== undefined) showAudit(await o.audit(), o.now(), o.clock)
  }

  async function choose(index: number, button: HTMLButtonElement): Promise<void> {
    const v = versions[index]
    if (v === undefined) return
    say('history-problem', undefined)
    say('history-done', undefined)
    try {
      preview.show(await o.client.version(v.id))
    } catch (error) {
      close()
      return failed(error)
    }
    for (const b of list.querySelectorAll('button')) b.removeAttribute('aria-current')
    button.setAttribute('aria-current', 'true')
    current = v
    element('history-chosen-text').textContent =
      `The document as it was at ${whenText(v.at, o.now(), o.clock)}. Marked: what restoring it brings back (highlighted) and removes (struck through).`
    undo.replaceChildren(
      ...undoOffers(versions, index, o.now(), o.clock).map((offer) => {
        const b = document.createElement('button')
        b.type = 'button'
        b.className = 'history-undo'
        b.textContent = offer.label
        b.addEventListener('click', () => void previewUndo(offer))
        return b
      }),
    )
    pending = undefined
    confirm.hidden = true
    element('history-restore').hidden = false
    chosen.hidden = false
  }

  /** Shows what `offer` would leave (marked against now) and offers to confirm it. */
  async function previewUndo(offer: UndoOffer): Promise<void> {
    say('history-problem', undefined)
    say('history-done', undefined)
    try {
      preview.show(await o.client.revertPreview(offer.author, offer.since))
    } catch (error) {
      return failed(error)
    }
    pending = offer
    element('history-chosen-text').textContent =
      `The document as “${offer.label}” would leave it. Marked: what it brings back (highlighted) and removes (struck through).`
    confirm.textContent = `Confirm: ${offer.label}`
    confirm.hidden = false
    // What is shown is the undo's result now, not the version: restoring from here would mislead.
    element('history-restore').hidden = true
  }

  confirm.addEventListener('click', () => {
    const offer = pending
    if (offer !== undefined) void act(() => o.client.revert(offer.author, offer.since), `${offer.label}: done.`)
  })

  async function act(action: () => Promise<void>, done: string): Promise<void> {
    say('history-problem', undefined)
    try {
      await action()
    } catch (error) {
      return failed(error)
    }
    close()
    await load()
    say('history-done', done)
  }

  element('history-restore').addEventListener('click', () => {
    const v = current
    if (v !== undefined)
      void act(
        () => o.client.restore(v.id),
        `Restored the version of ${whenText(v.at, o.now(), o.clock)}. You can undo this by restoring the version before it.`,
      )
  })
  element('history-close').addEventListener('click', close)
  element('history-open').addEventListener('click', () => {
    panel.hidden = !panel.hidden
    if (panel.hidden) clearTimeout(recheck)
    if (panel.hidden) close()
    else void load()
  })
  element('history-refresh').addEventListener('click', () => void load())
}
