/**
 * Comment highlights on the rich-text page (ProseMirror): each open thread's range marked with an
 * inline decoration (a background, apart from tracked changes), placed where y-prosemirror maps
 * its Y.XmlText, resolved from the model on every draw. The selection is counted as `GET …/text`
 * counts the rich text: blocks joined by a line break; the sidecar checks the quote, so a
 * selection counted otherwise is refused in words, never written on other text.
 */
import { Plugin, PluginKey } from 'prosemirror-state'
import { Decoration, DecorationSet, type EditorView } from 'prosemirror-view'
import type * as Y from 'yjs'
import type { CommentMark, CommentMarks, CommentSelection } from './mount-comments.ts'
import { proseMirrorPosition } from './tracked-prosemirror.ts'

const key = new PluginKey<DecorationSet>('e2e-col-comments')

/** The plugin that holds the comment highlights. */
export const commentPlugin = new Plugin<DecorationSet>({
  key,
  state: {
    init: () => DecorationSet.empty,
    apply(tr, set) {
      const marks = tr.getMeta(key) as readonly CommentMark[] | undefined
      if (marks === undefined) return set.map(tr.mapping, tr.doc)
      const size = tr.doc.content.size
      return DecorationSet.create(
        tr.doc,
        marks
          .filter((m) => m.from < m.to && m.to <= size)
          .map(({ thread: t, from, to }) =>
            Decoration.inline(from, to, {
              class: 'comment-mark',
              'data-comment': t.id,
              'data-by': t.by,
              title: `${t.by} comments: ${t.body}`,
            }),
          ),
      )
    },
  },
  props: { decorations: (state) => key.getState(state) },
})

/** Comment highlights of `fragment` drawn in `view`. */
export function proseMirrorComments(view: EditorView, doc: Y.Doc, fragment: Y.XmlFragment): CommentMarks {
  return {
    editorPosition: (node, index) => proseMirrorPosition(view, doc, fragment, node, index),
    show: (marks) => view.dispatch(view.state.tr.setMeta(key, marks)),
  }
}

/** The editor's selection in the rich text's plain form (blocks joined by '\n'). */
export function proseMirrorSelection(view: EditorView): CommentSelection | undefined {
  const { from, to } = view.state.selection
  if (from === to) return undefined
  const before = view.state.doc.textBetween(0, from, '\n')
  const quote = view.state.doc.textBetween(from, to, '\n')
  return { index: before.length, length: quote.length, quote }
}
