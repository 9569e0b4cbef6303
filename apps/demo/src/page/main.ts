/**
 * The demo page: a CodeMirror 6 editor bound (y-codemirror.next) to a Y.Doc that `@e2e-col/client`
 * keeps in sync through the sidecar named in the page URL. Presence rides on the binding's
 * awareness channel: remote cursors and selections with names and colours, and the "who is here"
 * line.
 */
import { connectDoc, type ClientStatus } from '@e2e-col/client'
import { Compartment, EditorState } from '@codemirror/state'
import { basicSetup, EditorView } from 'codemirror'
import { yCollab } from 'y-codemirror.next'
import * as Y from 'yjs'
import { authorMarkExtension, codeMirrorMarks } from './authorship-codemirror.ts'
import { fetchAuthors } from './authors.ts'
import { mountAuthorshipToggle } from './authorship-toggle.ts'
import { colourFor } from './presence.ts'
import { mountPresence } from './presence-view.ts'
import { element, startDocumentPage } from '../start-up.ts'
import { followRole } from './read-only.ts'
import { followGone } from './gone.ts'
import { forgetLocalCopy, watchNotShared } from './not-shared.ts'
import { showStatus } from './status-view.ts'
import { keepPagesOffline } from '../offline-shell.ts'
import { apiBase } from '../docs-client.ts'
import { createHistoryClient } from '../history/history-client.ts'
import { auditOf } from '../review/audit.ts'
import { localClock, mountHistoryPanel } from '../history/history-panel.ts'
import { textPreview } from '../history/text-preview.ts'
import { codeMirrorTracked, trackedExtension } from '../review/tracked-codemirror.ts'
import { mountReview } from '../review/mount-review.ts'
import { codeMirrorComments, codeMirrorSelection, commentExtension } from '../review/comments-codemirror.ts'
import { mountComments } from '../review/mount-comments.ts'
import { suggestSwitch } from '../review/suggest-toggle.ts'

keepPagesOffline()

/** The editor's read-only switch, one compartment's content. */
const lock = (readOnly: boolean) => [EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)]

const render = (status: ClientStatus): void =>
  showStatus(status, { waiting: status.weakest !== 'group', weakest: status.weakest })

const params = startDocumentPage('e2e-col')
if (params !== null) {
  const { sidecarUrl, docId, name } = params

  const doc = new Y.Doc()
  const text = doc.getText('text')
  const connection = connectDoc({ doc, sidecarUrl, docId, awareness: {} })
  const awareness = connection.awareness
  if (awareness === null) throw new Error('the binding was asked for presence')
  const colour = colourFor(name)
  // y-codemirror.next reads `user` for the caret label and selection tint; it writes `cursor`.
  awareness.setLocalStateField('user', { name, color: colour, colorLight: `${colour}33` })

  mountPresence(element('presence'), awareness, doc)

  // A viewer's editor is read-only (its sidecar would refuse the edits anyway: SIDECAR_READ_ONLY).
  const editable = new Compartment()
  const suggesting = suggestSwitch({ sidecarUrl, docId, colour })
  const view = new EditorView({
    parent: element('editor'),
    extensions: [
      basicSetup,
      EditorView.lineWrapping,
      yCollab(text, awareness),
      authorMarkExtension,
      trackedExtension,
      commentExtension,
      suggesting.extension,
      editable.of(lock(false)),
    ],
  })
  mountAuthorshipToggle({ editor: element('editor'), doc, sidecarUrl, docId, marks: codeMirrorMarks(view, text) })
  mountReview({ doc, target: { name: 'text', kind: 'text' }, sidecarUrl, docId, marks: codeMirrorTracked(view, text) })
  mountComments({
    doc,
    target: { name: 'text', kind: 'text' },
    sidecarUrl,
    docId,
    marks: codeMirrorComments(view, text),
    selection: () => codeMirrorSelection(view),
  })
  suggesting.mount(view)
  const role = followRole((readOnly) => view.dispatch({ effects: editable.reconfigure(lock(readOnly)) }))
  // Removed or left: the last copy stays readable, nothing more is sent or counted as waiting.
  const { watch, gone } = followGone({
    sidecarUrl,
    docId,
    stop: () => {
      view.dispatch({ effects: editable.reconfigure(lock(true)) })
      void connection.close()
    },
  })
  // Edits not shared because this person was made a viewer first (decisions/0032).
  // Rebuilt from the group's state since this page loaded: its copy holds text nobody else has.
  const reload = (): void =>
    void connection
      .close()
      .then(() => forgetLocalCopy(sidecarUrl, docId))
      .finally(() => location.reload())
  const notShared = watchNotShared({ sidecarUrl, docId, loadedAt: Date.now(), reload })
  const onStatus = (status: ClientStatus): void => {
    if (gone() !== undefined) return
    render(status)
    role(status)
    watch(status.connection === 'connected')
    notShared({ connected: status.connection === 'connected', role: status.delivery.role })
  }
  onStatus(connection.status())
  connection.on('status', onStatus)
  connection.on('error', (error) => console.warn(`e2e-col: ${error.code}: ${error.message}`))

  mountHistoryPanel({
    client: createHistoryClient(apiBase(sidecarUrl), docId),
    preview: (box) => textPreview(box, 'text', () => text.toString()),
    clock: localClock,
    now: Date.now,
    audit: async () => auditOf(doc, await fetchAuthors(sidecarUrl, docId)),
  })

  // Leaving with unconfirmed edits is safe (they are in IndexedDB), but say so before a tab closes.
  window.addEventListener('beforeunload', (event) => {
    if (gone() === undefined && connection.status().pending > 0) event.preventDefault()
  })

  // A small handle for the browser tests and for curious people in the console.
  Object.assign(window, {
    e2eColDemo: {
      text: () => text.toString(),
      status: () => connection.status(),
      readOnly: () => view.state.readOnly,
      gone: () => gone()?.gone,
      doc,
      view,
      awareness,
    },
  })
}
