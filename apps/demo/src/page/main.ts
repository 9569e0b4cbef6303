/**
 * The demo page: a CodeMirror 6 editor bound (y-codemirror.next) to a Y.Doc that `@e2e-col/client`
 * keeps in sync through the sidecar named in the page URL. Presence rides on the binding's
 * awareness channel: remote cursors and selections with names and colours, and the "who is here"
 * line.
 */
import { connectDoc, type ClientStatus } from '@e2e-col/client'
import { basicSetup, EditorView } from 'codemirror'
import { yCollab } from 'y-codemirror.next'
import * as Y from 'yjs'
import { readPageParams } from './page-params.ts'
import { colourFor } from './presence.ts'
import { mountPresence } from './presence-view.ts'
import { connectionText, statusText } from './status-text.ts'

function element(id: string): HTMLElement {
  const el = document.getElementById(id)
  if (el === null) throw new Error(`page is missing #${id}`)
  return el
}

const parsed = readPageParams(location.search)
if (!parsed.ok) {
  const problem = element('problem')
  problem.textContent = parsed.problem
  problem.hidden = false
} else {
  const { sidecarUrl, docId, name, title } = parsed.params
  element('whoami').textContent = name
  element('doc-id').textContent = title ?? docId
  element('sidecar').textContent = sidecarUrl
  document.title = `${name} · e2e-col`

  const doc = new Y.Doc()
  const text = doc.getText('text')
  const connection = connectDoc({ doc, sidecarUrl, docId, awareness: {} })
  const awareness = connection.awareness
  if (awareness === null) throw new Error('the binding was asked for presence')
  const colour = colourFor(name)
  // y-codemirror.next reads `user` for the caret label and selection tint; it writes `cursor`.
  awareness.setLocalStateField('user', { name, color: colour, colorLight: `${colour}33` })

  const render = (status: ClientStatus): void => {
    const pill = element('status')
    pill.dataset['state'] = status.connection
    pill.textContent = connectionText(status.connection)
    const pending = element('pending')
    pending.textContent = statusText(status, (ms) =>
      new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }),
    )
    pending.dataset['waiting'] = String(status.weakest !== 'group')
    pending.dataset['weakest'] = status.weakest
  }
  render(connection.status())
  connection.on('status', render)
  connection.on('error', (error) => console.warn(`e2e-col: ${error.code}: ${error.message}`))
  mountPresence(element('presence'), awareness, doc)

  const view = new EditorView({
    parent: element('editor'),
    extensions: [basicSetup, EditorView.lineWrapping, yCollab(text, awareness)],
  })

  // Leaving with unconfirmed edits is safe (they are in IndexedDB), but say so before a tab closes.
  window.addEventListener('beforeunload', (event) => {
    if (connection.status().pending > 0) event.preventDefault()
  })

  // A small handle for the browser tests and for curious people in the console.
  Object.assign(window, {
    e2eColDemo: { text: () => text.toString(), status: () => connection.status(), doc, view, awareness },
  })
}
