/**
 * The edits of this person that did not reach the document's group because they were made a
 * viewer or a commenter first (decisions/0032), as their sidecar keeps them: shown above the
 * document with why and who made the change, each readable and with a Copy button; and, while the
 * role lasts, who made them a viewer ("Alice made you a viewer"). When the sidecar has rebuilt its
 * replica from the group's state since this page loaded, the page loads again, so it never shows
 * text nobody else has. The plain and the rich page both show it through this one module.
 */
import { apiBase } from '../docs-client.ts'

export type NotSharedReason = 'unsent' | 'not-taken' | 'refused'

/** The role a demotion left this person in. */
export type DemotedTo = 'viewer' | 'commenter'

export interface NotSharedEdit {
  readonly reason: NotSharedReason
  readonly text: string
  readonly at: number
  readonly cut?: boolean
  /** The role they were made (older sidecars say nothing: a viewer). */
  readonly role?: DemotedTo
  /** Who made the change, told apart as the sidecar tells people apart; absent when not known. */
  readonly by?: string
}

export interface NotSharedAnswer {
  readonly edits: readonly NotSharedEdit[]
  /** The demotion that left this person in the role they have now. */
  readonly demotion?: { readonly role: DemotedTo; readonly by?: string }
  readonly rejoinPending: boolean
  readonly rejoinedAt?: number
}

/** Who made the change, as a sentence's start: "Alice made you a viewer", or "You were made a viewer". */
export function madeText(role: DemotedTo, by: string | undefined): string {
  return by === undefined ? `You were made a ${role}` : `${by} made you a ${role}`
}

/** The line above the list, for the newest edit's demotion. */
export function notSharedHead(role: DemotedTo, by: string | undefined): string {
  return `${madeText(role, by)} before these edits reached the others: they are not in the shared document. Copy them to keep them; made an editor again, you can paste them back.`
}

/** Why one edit did not reach the group, in the words the page shows. */
export function reasonText(reason: NotSharedReason, role: DemotedTo = 'viewer'): string {
  if (reason === 'unsent') return `saved on this computer, not sent before you were made a ${role}`
  if (reason === 'not-taken') return `sent after the others had made you a ${role}: they dropped it`
  return `typed as you were made a ${role}: refused`
}

const isRole = (v: unknown): v is DemotedTo => v === 'viewer' || v === 'commenter'

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

/** The line naming who made this person a viewer or a commenter, made once after the read-only line. */
function madeByLine(): HTMLElement {
  const found = document.getElementById('made-by')
  if (found !== null) return found
  const line = document.createElement('p')
  line.id = 'made-by'
  line.className = 'read-only'
  line.setAttribute('role', 'status')
  const anchor = document.getElementById('read-only')
  if (anchor?.parentElement) anchor.after(line)
  else document.body.prepend(line)
  return line
}

/** Shows who made this person what they are now ("Alice made you a viewer"); hidden when no demotion is known. */
export function showMadeBy(demotion: NotSharedAnswer['demotion']): void {
  const line = madeByLine()
  const role = demotion?.role
  line.hidden = !isRole(role)
  line.textContent = isRole(role) ? madeText(role, demotion?.by) : ''
}

/** Shows `edits` (hidden when none). */
export function showNotShared(edits: readonly NotSharedEdit[]): void {
  const box = section()
  box.hidden = edits.length === 0
  box.replaceChildren()
  const newest = edits.at(-1)
  if (newest === undefined) return
  const head = document.createElement('p')
  head.textContent = notSharedHead(isRole(newest.role) ? newest.role : 'viewer', newest.by)
  box.append(head)
  for (const e of edits) {
    const item = document.createElement('div')
    item.className = 'not-shared-edit'
    item.dataset['reason'] = e.reason
    const why = document.createElement('p')
    const role = isRole(e.role) ? e.role : 'viewer'
    const who = e.by === undefined ? '' : ` (${e.by} made the change)`
    why.textContent = `${reasonText(e.reason, role)}${who}${e.cut === true ? ' (only its beginning was kept)' : ''}:`
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

// A demotion shown without who made it is asked about again this often, at most so many times:
// its sidecar names them when the group update comes after the listing (demotion.ts).
const ASK_AGAIN_MS = 2000
const ASK_AGAIN_TIMES = 10

/**
 * Follows the sidecar: asks again at each (re)connection and each role change, and a few times
 * more while the demotion shown does not name who made it; loads the page again when the replica
 * was rebuilt after `loadedAt`. Returns the function to feed each status.
 */
export function watchNotShared(o: {
  readonly sidecarUrl: string
  readonly docId: string
  readonly loadedAt: number
  readonly reload: () => void
}): (state: { connected: boolean; role: string | undefined }) => void {
  let seen = ''
  let again: ReturnType<typeof setTimeout> | undefined
  const ask = (key: string, left: number): void =>
    void askNotShared(o.sidecarUrl, o.docId).then((answer) => {
      if (answer === undefined || key !== seen) return
      if (answer.rejoinedAt !== undefined && answer.rejoinedAt > o.loadedAt) return o.reload()
      showMadeBy(answer.demotion)
      showNotShared(answer.edits)
      if (answer.demotion !== undefined && answer.demotion.by === undefined && left > 0)
        again = setTimeout(() => ask(key, left - 1), ASK_AGAIN_MS)
    })
  return ({ connected, role }) => {
    const key = `${connected}/${role}`
    if (key === seen) return
    seen = key
    clearTimeout(again)
    if (!connected) return
    ask(key, ASK_AGAIN_TIMES)
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
