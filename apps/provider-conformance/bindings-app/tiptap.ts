// TipTap 3 with its own Collaboration and CollaborationCaret extensions, on E2eColProvider exactly
// as they are documented on y-websocket's provider.
import { Editor } from '@tiptap/core'
import Collaboration from '@tiptap/extension-collaboration'
import CollaborationCaret from '@tiptap/extension-collaboration-caret'
import StarterKit from '@tiptap/starter-kit'
import { E2eColProvider } from '@e2e-col/client'
import * as Y from 'yjs'

const query = new URLSearchParams(location.search)
const doc = new Y.Doc()
const provider = new E2eColProvider(query.get('sidecar') ?? '', query.get('doc') ?? '', doc)
const editor = new Editor({
  element: document.querySelector('#editor') ?? undefined,
  extensions: [
    StarterKit.configure({ undoRedo: false }),
    Collaboration.configure({ document: doc, field: 'tiptap' }),
    CollaborationCaret.configure({ provider, user: { name: query.get('name') ?? '?', color: '#d1495b' } }),
  ],
})
Object.assign(window, {
  binding: { text: () => editor.getText(), synced: () => provider.synced, pending: () => provider.pending },
})
