// y-monaco's MonacoBinding on E2eColProvider's document and awareness, as its README shows it
// with y-websocket's provider.
import * as monaco from 'monaco-editor/esm/vs/editor/editor.api.js'
import { MonacoBinding } from 'y-monaco'
import { E2eColProvider } from '@e2e-col/client'
import * as Y from 'yjs'

Object.assign(self, {
  MonacoEnvironment: {
    getWorker: () =>
      new Worker(new URL('monaco-editor/esm/vs/editor/editor.worker.js', import.meta.url), { type: 'module' }),
  },
})
const query = new URLSearchParams(location.search)
const doc = new Y.Doc()
const provider = new E2eColProvider(query.get('sidecar') ?? '', query.get('doc') ?? '', doc)
provider.awareness.setLocalStateField('user', { name: query.get('name') ?? '?' })
const element = document.querySelector<HTMLElement>('#editor')
if (element === null) throw new Error('no #editor')
element.style.height = '300px'
const editor = monaco.editor.create(element, { value: '', language: 'plaintext' })
const model = editor.getModel()
if (model === null) throw new Error('no model')
const binding = new MonacoBinding(doc.getText('monaco'), model, new Set([editor]), provider.awareness)
Object.assign(window, {
  monacoBinding: binding,
  binding: { text: () => editor.getValue(), synced: () => provider.synced, pending: () => provider.pending },
})
