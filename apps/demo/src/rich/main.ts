/**
 * The rich-text demo page: ProseMirror bound by y-prosemirror to a Y.XmlFragment of the same
 * document, through {@link E2eColProvider} — the provider shape y-prosemirror's own examples use
 * with y-websocket. Remote cursors carry each person's name and colour.
 */
import { E2eColProvider } from '@e2e-col/client'
import { baseKeymap, toggleMark } from 'prosemirror-commands'
import { keymap } from 'prosemirror-keymap'
import { schema } from 'prosemirror-schema-basic'
import { EditorState } from 'prosemirror-state'
import { EditorView } from 'prosemirror-view'
import { redo, undo, yCursorPlugin, ySyncPlugin, yUndoPlugin } from 'y-prosemirror'
import * as Y from 'yjs'
import { mountPresence } from '../page/presence-view.ts'
import { followRole } from '../page/read-only.ts'
import { showStatus } from '../page/status-view.ts'
import { colourFor } from '../page/presence.ts'
import { element, startDocumentPage } from '../start-up.ts'
import { keepPagesOffline } from '../offline-shell.ts'
import { mountAuthorshipToggle } from '../page/authorship-toggle.ts'
import { fetchAuthors } from '../page/authors.ts'
import { authorMarkPlugin, proseMirrorMarks } from './authorship-prosemirror.ts'
import { apiBase } from '../docs-client.ts'
import { createHistoryClient } from '../history/history-client.ts'
import { auditOf } from '../review/audit.ts'
import { localClock, mountHistoryPanel } from '../history/history-panel.ts'
import { richPreview } from '../history/rich-preview.ts'
import { followGone } from '../page/gone.ts'
import { forgetLocalCopy, watchNotShared } from '../page/not-shared.ts'
import { mountReview } from '../review/mount-review.ts'
import { commentPlugin, proseMirrorComments, proseMirrorSelection } from '../review/comments-prosemirror.ts'
import { mountComments } from '../review/mount-comments.ts'
import { proseMirrorTracked, trackedPlugin } from '../review/tracked-prosemirror.ts'

keepPagesOffline()

const params = startDocumentPage('rich text · e2e-col')
if (params !== null) {
  const { sidecarUrl, docId, name } = params

  const doc = new Y.Doc()
  const fragment = doc.getXmlFragment('rich')
  const provider = new E2eColProvider(sidecarUrl, docId, doc)
  provider.awareness.setLocalStateField('user', { name, color: colourFor(name) })

  mountPresence(element('presence'), provider.awareness, doc)

  // A viewer's editor is read-only (its sidecar would refuse the edits anyway: SIDECAR_READ_ONLY).
  let readOnly = false
  const view = new EditorView(element('editor'), {
    editable: () => !readOnly,
    state: EditorState.create({
      schema,
      plugins: [
        ySyncPlugin(fragment),
        yCursorPlugin(provider.awareness),
        yUndoPlugin(),
        keymap({
          'Mod-z': undo,
          'Mod-y': redo,
          'Mod-Shift-z': redo,
          'Mod-b': toggleMark(schema.marks.strong),
          'Mod-i': toggleMark(schema.marks.em),
        }),
        keymap(baseKeymap),
        authorMarkPlugin,
        trackedPlugin,
        commentPlugin,
      ],
    }),
  })

  mountAuthorshipToggle({
    editor: element('editor'),
    doc,
    sidecarUrl,
    docId,
    marks: proseMirrorMarks(view, doc, fragment),
  })
  mountReview({
    doc,
    target: { name: 'rich', kind: 'xml' },
    sidecarUrl,
    docId,
    marks: proseMirrorTracked(view, doc, fragment),
  })
  mountComments({
    doc,
    target: { name: 'rich', kind: 'xml' },
    sidecarUrl,
    docId,
    marks: proseMirrorComments(view, doc, fragment),
    selection: () => proseMirrorSelection(view),
  })
  const role = followRole((viewer) => {
    readOnly = viewer
    view.setProps({ editable: () => !readOnly })
  })
  // Removed or left: the last copy stays readable, nothing more is sent or counted as waiting.
  const { watch, gone } = followGone({
    sidecarUrl,
    docId,
    stop: () => {
      readOnly = true
      view.setProps({ editable: () => false })
      provider.disconnect()
    },
  })
  // Edits not shared because this person was made a viewer first (decisions/0032), as on the plain page.
  // Rebuilt from the group's state since this page loaded: its copy holds text nobody else has.
  const reload = (): void => {
    provider.destroy()
    void provider.whenDestroyed.then(() => forgetLocalCopy(sidecarUrl, docId)).finally(() => location.reload())
  }
  const notShared = watchNotShared({ sidecarUrl, docId, loadedAt: Date.now(), reload })
  const renderStatus = (): void => {
    if (gone() !== undefined) return
    const status = provider.clientStatus
    showStatus(status, { waiting: !provider.allSent, weakest: provider.delivery.state })
    role(status)
    watch(status.connection === 'connected')
    notShared({ connected: status.connection === 'connected', role: status.delivery.role })
  }
  renderStatus()
  provider.on('status', renderStatus)
  provider.on('delivery', renderStatus)
  provider.on('sync', renderStatus)
  provider.on('error', (error) => console.warn(`e2e-col: ${error.code}: ${error.message}`))
  mountHistoryPanel({
    client: createHistoryClient(apiBase(sidecarUrl), docId),
    preview: (box) => richPreview(box, 'rich', schema, () => view.state.doc),
    previewClass: 'rich',
    clock: localClock,
    now: Date.now,
    audit: async () => auditOf(doc, await fetchAuthors(sidecarUrl, docId)),
  })

  window.addEventListener('beforeunload', (event) => {
    if (gone() === undefined && provider.pending > 0) event.preventDefault()
  })

  Object.assign(window, {
    e2eColRich: {
      text: () => view.state.doc.textContent,
      blocks: () => view.state.doc.children.map((node) => `${node.type.name}: ${node.textContent}`),
      readOnly: () => !view.editable,
      provider,
      doc,
      view,
    },
  })
}
