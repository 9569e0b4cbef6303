// Lexical 0.52's CollaborationPlugin with shouldBootstrap, as its docs show it with y-websocket:
// the provider is made by the plugin's factory, unconnected, and the plugin connects it.
import { CollaborationPlugin } from '@lexical/react/LexicalCollaborationPlugin'
import { LexicalCollaboration } from '@lexical/react/LexicalCollaborationContext'
import { LexicalComposer } from '@lexical/react/LexicalComposer'
import { ContentEditable } from '@lexical/react/LexicalContentEditable'
import { LexicalErrorBoundary } from '@lexical/react/LexicalErrorBoundary'
import { RichTextPlugin } from '@lexical/react/LexicalRichTextPlugin'
import type { Provider } from '@lexical/yjs'
import { E2eColProvider } from '@e2e-col/client'
import { createElement as h } from 'react'
import { createRoot } from 'react-dom/client'
import * as Y from 'yjs'

const query = new URLSearchParams(location.search)
let provider: E2eColProvider | undefined
const providerFactory = (id: string, docs: Map<string, Y.Doc>): Provider => {
  const doc = new Y.Doc()
  docs.set(id, doc)
  provider = new E2eColProvider(query.get('sidecar') ?? '', id, doc, { connect: false })
  return provider as unknown as Provider
}
const root = document.querySelector('#editor')
if (root === null) throw new Error('no #editor')
createRoot(root).render(
  h(
    LexicalCollaboration,
    null,
    h(
      LexicalComposer,
      {
        initialConfig: {
          namespace: 'bindings',
          editorState: null,
          onError: (error: Error) => {
            throw error
          },
        },
      },
      h(RichTextPlugin, {
        contentEditable: h(ContentEditable, { className: 'lexical' }),
        placeholder: null,
        ErrorBoundary: LexicalErrorBoundary,
      }),
      h(CollaborationPlugin, {
        id: query.get('doc') ?? '',
        providerFactory,
        shouldBootstrap: true,
        username: query.get('name') ?? '?',
      }),
    ),
  ),
)
Object.assign(window, {
  binding: {
    paragraphs: () => document.querySelectorAll('.lexical p').length,
    text: () => document.querySelector('.lexical')?.textContent ?? '',
    synced: () => provider?.synced === true,
    pending: () => provider?.pending ?? -1,
  },
})
