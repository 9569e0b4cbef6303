/**
 * The rich-text page's preview of a version: a read-only ProseMirror over the version's
 * `Y.XmlFragment`, each block that differs from the document now marked (block-changes.ts).
 */
import type { Node, Schema } from 'prosemirror-model'
import { EditorState } from 'prosemirror-state'
import { Decoration, DecorationSet, EditorView } from 'prosemirror-view'
import { yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror'
import * as Y from 'yjs'
import { changedBlocks } from './block-changes.ts'
import type { Preview } from './history-panel.ts'

const blocksOf = (doc: Node): string[] => doc.children.map((block) => JSON.stringify(block.toJSON()))

/** A preview in `parent` of the fragment `root`, compared block by block with `now()` (the live document). */
export function richPreview(parent: HTMLElement, root: string, schema: Schema, now: () => Node): Preview {
  let view: EditorView | undefined
  return {
    show(update) {
      const ydoc = new Y.Doc()
      Y.applyUpdate(ydoc, update)
      const doc = yXmlFragmentToProseMirrorRootNode(ydoc.getXmlFragment(root), schema)
      ydoc.destroy()
      const changed = changedBlocks(blocksOf(now()), blocksOf(doc))
      const marks: Decoration[] = []
      doc.forEach((block, offset, index) => {
        if (changed[index] === true)
          marks.push(Decoration.node(offset, offset + block.nodeSize, { class: 'history-changed' }))
      })
      const decorations = DecorationSet.create(doc, marks)
      view?.destroy()
      view = new EditorView(parent, {
        state: EditorState.create({ doc }),
        editable: () => false,
        decorations: () => decorations,
      })
    },
    hide() {
      view?.destroy()
      view = undefined
    },
  }
}
