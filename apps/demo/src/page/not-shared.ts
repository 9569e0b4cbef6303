/**
 * The edits of this person that did not reach the document's group because they were made a
 * viewer first (decisions/0032), as their sidecar keeps them: shown above the document with why,
 * each readable and with a Copy button. When the sidecar has rebuilt its replica from the group's
 * state since this page loaded, the page loads again, so it never shows text nobody else has.
 */
import { apiBase } from '../docs-client.ts'

export type NotSharedReason = 'unsent' | 'not-taken' | 'refused'

export interface NotSharedEdit {
  readonly reason: NotSharedReason
  readonly text: string
  readonly at: number
  readonly cut?: boolean
}

export interface NotSharedAnswer {
  readonly edits: readonly NotSharedEdit[]
  readonly rejoinPending: boolean
  readonly rejoinedAt?: number
}

/** The line above the list. */
export const NOT_SHARED_HEAD =
  'You were made a viewer before these edits reached the others: they are not in the shared document. Copy them to keep them; made an editor again, you can paste them back.'

/** Why one edit did not reach the group, in the words the page shows. */
export function reasonText(reason: NotSharedReason): string {
  if (reason === 'unsent') return 'saved on this computer, not sent before you were made a viewer'
  if (reason === 'not-taken') return 'sent after the others had made you a viewer: they dropped it'
  return 'typed as you were made a viewer: refused'
}

const isAnswer = (v: unknown): v is NotSharedAnswer => {
  const a = v as Partial<NotSharedAnswer> | null
  return typeof a === 'object' && a !== null && Array.isArray(a.edits) && typeof a.rejoinPending === 'boolean'
}

/** Asks the sidecar; undefined when it does not answer (it is away, or serves no such document). */
export async function askNotShared(sidecarUrl: string, docId: string): Promise<NotSharedAnswer | undefined> {
  try {
    const res = await fetch(`${apiBase(sidecarUrl)}/v1/docs/${encodeURIComponent(docId)}/not-shared`)
    if (!res.ok) return undefined
    const body: unknown = await res.json()
    return isAnswer(body) ? body : undefined
  } catch {
    return undefined
  }
}

/** The section that shows the edits, made once beside the read-only line. */
function section(): HTMLElement {
  const found = document.getElementById('not-shared')
  if (found !== null) return found
  const box = document.createElement('section')
  box.id = 'not-shared'
  box.className = 'not-shared'
  box.setAttribute('role', 'status')
  const anchor = document.getElementById('read-only')
  if (anchor?.parentElement) anchor.after(box)
  else document.body.prepend(box)
  return box
}

/** Shows `edits` (hidden when none). */
export function showNotShared(edits: readonly NotSharedEdit[]): void {
  const box = section()
  box.hidden = edits.length === 0
  box.replaceChildren()
  if (edits.length === 0) return
  const head = document.createElement('p')
  head.textContent = NOT_SHARED_HEAD
  box.append(head)
  for (const e of edits) {
    const item = document.createElement('div')
    item.className = 'not-shared-edit'
    item.dataset['reason'] = e.reason
    const why = document.createElement('p')
    why.textContent = `${reasonText(e.reason)}${e.cut === true ? ' (only its beginning was kept)' : ''}:`
    const text = document.createElement('pre')
    text.textContent = e.text
    const copy = document.createElement('button')
    copy.type = 'button'
    copy.textContent = 'Copy'
    copy.addEventListener('click', () => {
      void navigator.clipboard?.writeText(e.text).then(
        () => (copy.textContent = 'Copied'),
        () => window.getSelection()?.selectAllChildren(text),
      )
    })
    item.append(why, text, copy)
    box.append(item)
  }
}

/**
 * Follows the sidecar: asks again at each (re)connection and each role change; loads the page
 * again when the replica was rebuilt after `loadedAt`. Returns the function to feed each status.
 */
export function watchNotShared(o: {
  readonly sidecarUrl: string
  readonly docId: string
  readonly loadedAt: number
  readonly reload: () => void
}): (state: { connected: boolean; role: string | undefined }) => void {
  let seen = ''
  return ({ connected, role }) => {
    const key = `${connected}/${role}`
    if (key === seen) return
    seen = key
    if (!connected) return
    void askNotShared(o.sidecarUrl, o.docId).then((answer) => {
      if (answer === undefined) return
      if (answer.rejoinedAt !== undefined && answer.rejoinedAt > o.loadedAt) return o.reload()
      showNotShared(answer.edits)
    })
  }
}

/**
 * Forgets this browser's copy of the document (the client's IndexedDB database and page-hide
 * rescue, named as `@e2e-col/client` names them by default), so the page loads again from its
 * sidecar's rebuilt replica rather than from text nobody else has. Resolves once the deletion is
 * done or waits only on this page's own open connection (it completes as the page unloads).
 */
export function forgetLocalCopy(sidecarUrl: string, docId: string): Promise<void> {
  const prefix = `e2e-col@${new URL(sidecarUrl).host}:doc:${docId}`
  try {
    for (const key of Object.keys(localStorage)) if (key.startsWith(prefix)) localStorage.removeItem(key)
  } catch {
    // no local storage: nothing kept there
  }
  return new Promise((resolve) => {
    const req = indexedDB.deleteDatabase(prefix)
    for (const event of ['success', 'error', 'blocked']) req.addEventListener(event, () => resolve())
  })
}
