/**
 * Comment highlights on the CodeMirror page: each open thread's range marked (a background, apart
 * from tracked changes' strike and underline), its hover text naming who and what. Positions are
 * the Y.Text's indices (y-codemirror.next keeps them equal), resolved from the model on every draw.
 */
import { StateEffect, StateField, type Extension } from '@codemirror/state'
import { Decoration, EditorView, type DecorationSet } from '@codemirror/view'
import type * as Y from 'yjs'
import type { CommentMark, CommentMarks } from './mount-comments.ts'

const setComments = StateEffect.define<readonly CommentMark[]>()

function decorations(marks: readonly CommentMark[], length: number): DecorationSet {
  const ranges = marks.flatMap(({ thread: t, from, to }) =>
    from < to && to <= length
      ? [
          Decoration.mark({
            class: 'comment-mark',
            attributes: { 'data-comment': t.id, 'data-by': t.by, title: `${t.by} comments: ${t.body}` },
          }).range(from, to),
        ]
      : [],
  )
  return Decoration.set(ranges, true)
}

const commentField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(set, tr) {
    for (const e of tr.effects) if (e.is(setComments)) return decorations(e.value, tr.state.doc.length)
    return set.map(tr.changes)
  },
  provide: (field) => EditorView.decorations.from(field),
})

/** The extension the editor needs for comment highlights. */
export const commentExtension: Extension = commentField

/** Comment highlights of `text` drawn in `view`. */
export function codeMirrorComments(view: EditorView, text: Y.Text): CommentMarks {
  return {
    editorPosition: (node, index) => (node === text ? index : undefined),
    show: (marks) => view.dispatch({ effects: setComments.of(marks) }),
  }
}

/** The editor's selection as the sidecar counts it: on this page, positions are the text's indices. */
export function codeMirrorSelection(view: EditorView): { index: number; length: number; quote: string } | undefined {
  const { from, to } = view.state.selection.main
  return from === to ? undefined : { index: from, length: to - from, quote: view.state.sliceDoc(from, to) }
}
