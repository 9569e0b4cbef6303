/**
 * "Who wrote this" on the CodeMirror page: the marks as decorations. y-codemirror.next keeps the
 * editor's positions equal to the Y.Text's indices, so a run of items is a range as it is.
 */
import { StateEffect, StateField, type Extension } from '@codemirror/state'
import { Decoration, EditorView, type DecorationSet } from '@codemirror/view'
import type * as Y from 'yjs'
import { runsOf } from './authors.ts'
import type { AuthorMark, AuthorMarks } from './authorship-toggle.ts'

const setMarks = StateEffect.define<readonly AuthorMark[]>()

const markField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    for (const e of tr.effects) if (e.is(setMarks)) return decorations(e.value, tr.state.doc.length)
    return marks.map(tr.changes)
  },
  provide: (field) => EditorView.decorations.from(field),
})

function decorations(marks: readonly AuthorMark[], length: number): DecorationSet {
  const ranges = marks
    .filter((m) => m.from < m.to && m.to <= length)
    .map((m) =>
      Decoration.mark({
        class: m.author.verified ? 'cm-author' : 'cm-author cm-author-unverified',
        attributes: {
          title: m.author.label,
          'data-author': m.author.label,
          style: `--author-colour: ${m.author.colour}`,
        },
      }).range(m.from, m.to),
    )
  return Decoration.set(ranges, true)
}

/** The extension the editor needs for the marks. */
export const authorMarkExtension: Extension = markField

/** The marks of `text` in `view`. */
export function codeMirrorMarks(view: EditorView, text: Y.Text): AuthorMarks {
  return {
    runs: (spans) => runsOf(text, spans),
    show: (marks) => view.dispatch({ effects: setMarks.of(marks) }),
  }
}
