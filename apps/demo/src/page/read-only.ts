/**
 * What a viewer of a document sees: the editor read-only and the line "You can view this
 * document". The role comes from the sidecar's delivery notes (`ClientStatus.delivery.role`) and
 * may change while the page is open (an editor makes this person an editor or a viewer).
 */
import type { ClientStatus } from '@e2e-col/client'
import { element } from '../start-up.ts'

/** The words a viewer reads above the document. */
export const VIEW_ONLY_TEXT = 'You can view this document'

/**
 * True when the sidecar says this account may not edit the text: a viewer, or a commenter (whose
 * sidecar refuses its content edits; comments and suggestions are written through the review API).
 */
export const viewsOnly = (status: ClientStatus): boolean =>
  status.delivery.role === 'viewer' || status.delivery.role === 'commenter'

/**
 * Calls `apply(readOnly)` once now and again whenever the role changes, and shows or hides
 * `#read-only`; returns how to feed it the next status.
 */
export function followRole(apply: (readOnly: boolean) => void): (status: ClientStatus) => void {
  let shown: string | undefined
  return (status) => {
    const readOnly = viewsOnly(status)
    // A commenter's editor is read-only too, yet she writes comments: only a viewer's page hides them.
    const comments = status.delivery.role === 'viewer' ? 'read' : 'write'
    if (`${readOnly} ${comments}` === shown) return
    shown = `${readOnly} ${comments}`
    document.body.dataset['comments'] = comments
    const line = element('read-only')
    line.textContent = VIEW_ONLY_TEXT
    line.hidden = !readOnly
    document.body.dataset['role'] = readOnly ? 'viewer' : 'editor'
    apply(readOnly)
  }
}
