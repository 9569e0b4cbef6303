/**
 * A document that is no longer this person's: someone stopped sharing it with them, or they left
 * it (here, or in another tab). Its sidecar then refuses the page's socket, which a page cannot
 * tell from a sidecar that is not running; so while the page is not connected it asks the
 * documents API, which answers whenever the sidecar runs.
 */
import { apiBase, createDocsClient, type DocumentItem } from '../home/docs-client.ts'

/** Why the document is gone: `removed` (a member stopped sharing it) or `left`. */
export type Gone = 'removed' | 'left'

/** How often a page that is not connected asks again, ms. */
export const ASK_EVERY_MS = 3000

/** What the page says instead of "your sidecar is not running". */
export function goneText(gone: Gone, title: string): string {
  return gone === 'removed'
    ? `‘${title}’ is no longer shared with you: someone in it stopped sharing it with you. This is the last copy this browser kept: you can read and copy it; changes made here are not sent.`
    : `You left ‘${title}’. This is the last copy this browser kept: you can read and copy it; only its people can share it with you again.`
}

/** The pill's word for a gone document. */
export const gonePill = (gone: Gone): string => (gone === 'removed' ? 'not shared' : 'left')

/** Whether the listing says the document is gone: marked removed, or not listed at all (left). */
export function goneFrom(documents: readonly Pick<DocumentItem, 'docId' | 'state'>[], docId: string): Gone | undefined {
  const doc = documents.find((d) => d.docId === docId)
  if (doc === undefined) return 'left'
  return doc.state === 'removed' ? 'removed' : undefined
}

/**
 * Watches a page's connection: while it is not connected, asks the sidecar every
 * {@link ASK_EVERY_MS} whether the document is gone, and calls `onGone` once when it is (a sidecar
 * that does not answer is just away). Returns the function to feed `connected` on every status.
 */
export function watchGone(o: {
  readonly sidecarUrl: string
  readonly docId: string
  readonly onGone: (gone: Gone) => void
}): (connected: boolean) => void {
  const api = createDocsClient(apiBase(o.sidecarUrl))
  let timer: ReturnType<typeof setInterval> | undefined
  let asking = false
  let done = false
  const ask = async (): Promise<void> => {
    if (asking || done) return
    asking = true
    try {
      const gone = goneFrom((await api.list()).documents, o.docId)
      if (gone !== undefined && !done) {
        done = true
        clearInterval(timer)
        o.onGone(gone)
      }
    } catch {
      // Not answering: the sidecar is away, which the page already says.
    } finally {
      asking = false
    }
  }
  return (connected) => {
    if (done) return
    if (connected) {
      clearInterval(timer)
      timer = undefined
    } else if (timer === undefined) {
      void ask()
      timer = setInterval(() => void ask(), ASK_EVERY_MS)
    }
  }
}

const byId = (id: string): HTMLElement | null => document.getElementById(id)

/** Shows a gone document: the sentence in `#advice`, the pill, no "saved in this browser" count, no viewer line. */
export function showGone(gone: Gone): void {
  const title = byId('doc-title')?.textContent ?? 'this document'
  const advice = byId('advice')
  if (advice !== null) {
    advice.textContent = goneText(gone, title)
    advice.hidden = false
    advice.dataset['gone'] = gone
  }
  const pill = byId('status')
  if (pill !== null) {
    pill.textContent = gonePill(gone)
    pill.dataset['state'] = 'gone'
  }
  const pending = byId('pending')
  if (pending !== null) {
    pending.textContent = ''
    pending.dataset['waiting'] = 'false'
  }
  const readOnly = byId('read-only')
  if (readOnly !== null) readOnly.hidden = true
  document.body.dataset['gone'] = gone
}
