/**
 * A document that is no longer this person's: someone stopped sharing it with them, or they left
 * it (here, or in another tab). Its sidecar then refuses the page's socket, which a page cannot
 * tell from a sidecar that is not running; so while the page is not connected it asks the
 * documents API, which answers whenever the sidecar runs.
 */
import { apiBase, createDocsClient, type DocumentItem } from '../docs-client.ts'
import { personName } from '../home/home-text.ts'

/** Why the document is gone: `removed` (a member stopped sharing it) or `left`. */
export type Gone = 'removed' | 'left'

/** How often a page that is not connected asks again, ms. */
export const ASK_EVERY_MS = 3000

/** Why, and who removed this person when the sidecar heard it (their name as the sidecar shows it). */
export interface GoneWhy {
  readonly gone: Gone
  readonly by?: string
  /** An editor deleted the document for everyone (decisions/0028). */
  readonly deleted?: true
}

/** What the page says instead of "your sidecar is not running". */
export function goneText(why: GoneWhy, title: string): string {
  const copy = 'This is the last copy this browser kept: you can read and copy it'
  if (why.deleted === true) {
    const who = why.by === undefined ? 'Someone in it' : why.by
    return `${who} deleted ‘${title}’ for everyone. ${copy}; changes made here are not sent.`
  }
  if (why.gone === 'left') return `You left ‘${title}’. ${copy}; only its people can share it with you again.`
  const who = why.by === undefined ? 'Someone in it' : why.by
  return `${who} stopped sharing ‘${title}’ with you. ${copy}; changes made here are not sent.`
}

/** The pill's word for a gone document. */
export const gonePill = (gone: Gone): string => (gone === 'removed' ? 'not shared' : 'left')

/**
 * Whether the listing says the document is gone: marked removed (by someone, or by this account
 * from another device: left), or not listed at all (left).
 */
export function goneFrom(
  list: {
    readonly you: string
    readonly documents: readonly Pick<DocumentItem, 'docId' | 'state' | 'removedBy' | 'deletedForEveryone'>[]
  },
  docId: string,
): GoneWhy | undefined {
  const doc = list.documents.find((d) => d.docId === docId)
  if (doc === undefined) return { gone: 'left' }
  if (doc.state !== 'removed') return undefined
  const by = doc.removedBy
  if (doc.deletedForEveryone === true)
    return {
      gone: 'removed',
      deleted: true,
      ...(by === undefined ? {} : { by: by.number === list.you ? 'You' : personName(by) }),
    }
  if (by === undefined) return { gone: 'removed' }
  return by.number === list.you ? { gone: 'left' } : { gone: 'removed', by: personName(by) }
}

/**
 * Watches a page's connection: while it is not connected, asks the sidecar every
 * {@link ASK_EVERY_MS} whether the document is gone, and calls `onGone` once when it is (a sidecar
 * that does not answer is just away). Returns the function to feed `connected` on every status.
 */
export function watchGone(o: {
  readonly sidecarUrl: string
  readonly docId: string
  readonly onGone: (why: GoneWhy) => void
}): (connected: boolean) => void {
  const api = createDocsClient(apiBase(o.sidecarUrl))
  let timer: ReturnType<typeof setInterval> | undefined
  let asking = false
  let done = false
  const ask = async (): Promise<void> => {
    if (asking || done) return
    asking = true
    try {
      const gone = goneFrom(await api.list(), o.docId)
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

/**
 * Both editor pages' handling of a gone document, one owner: watches the connection and, once gone,
 * shows it and calls `stop` (the page turns its editor read-only and closes its connection).
 * `gone()` is why, once it is; `watch` is fed `connected` on every status.
 */
export function followGone(o: { readonly sidecarUrl: string; readonly docId: string; readonly stop: () => void }): {
  readonly watch: (connected: boolean) => void
  readonly gone: () => GoneWhy | undefined
} {
  let why: GoneWhy | undefined
  const watch = watchGone({
    sidecarUrl: o.sidecarUrl,
    docId: o.docId,
    onGone: (w) => {
      why = w
      o.stop()
      showGone(w)
    },
  })
  return { watch, gone: () => why }
}

const byId = (id: string): HTMLElement | null => document.getElementById(id)

/** Shows a gone document: the sentence in `#advice`, the pill, no "saved in this browser" count, no viewer line. */
export function showGone(why: GoneWhy): void {
  const { gone } = why
  const title = byId('doc-title')?.textContent ?? 'this document'
  const advice = byId('advice')
  if (advice !== null) {
    advice.textContent = goneText(why, title)
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
