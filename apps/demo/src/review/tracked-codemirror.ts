/**
 * Tracked changes on the CodeMirror page: each open suggestion's quoted range struck through (a
 * mark) and its replacement underlined right after it (a widget), in the suggester's colour, the
 * hover text naming who and why. y-codemirror.next keeps editor positions equal to the Y.Text's
 * indices, so a suggestion's place is its position as it is.
 */
import { StateEffect, StateField, type Extension } from '@codemirror/state'
import { Decoration, EditorView, WidgetType, type DecorationSet } from '@codemirror/view'
import type * as Y from 'yjs'
import { hoverText, type Tracked } from './tracked.ts'
import type { TrackedMark, TrackedMarks } from './mount-review.ts'

const setTracked = StateEffect.define<readonly TrackedMark[]>()

/** The replacement, shown after the struck range; never editable text of the document. */
class Insertion extends WidgetType {
  readonly t: Tracked
  constructor(t: Tracked) {
    super()
    this.t = t
  }
  override eq(other: Insertion): boolean {
    return JSON.stringify(attrsOf(other.t)) === JSON.stringify(attrsOf(this.t)) && other.t.replace === this.t.replace
  }
  toDOM(): HTMLElement {
    const ins = document.createElement('ins')
    ins.className = this.t.stale ? 'suggest-ins suggest-stale' : 'suggest-ins'
    ins.textContent = this.t.replace
    attributes(this.t, ins)
    return ins
  }
}

function attributes(t: Tracked, el: HTMLElement): void {
  for (const [k, v] of Object.entries(attrsOf(t))) el.setAttribute(k, v)
}

const attrsOf = (t: Tracked): Record<string, string> => ({
  title: hoverText(t),
  'data-suggestion': t.id,
  'data-by': t.by,
  style: `--suggest-colour: ${t.colour}`,
})

function decorations(marks: readonly TrackedMark[], length: number): DecorationSet {
  const ranges = marks.flatMap(({ tracked: t, from, to }) => {
    if (to > length || from > to) return []
    const del = Decoration.mark({
      class: t.stale ? 'suggest-del suggest-stale' : 'suggest-del',
      attributes: attrsOf(t),
    })
    const out = from < to ? [del.range(from, to)] : []
    if (t.replace !== '') out.push(Decoration.widget({ widget: new Insertion(t), side: 1 }).range(to))
    return out
  })
  return Decoration.set(ranges, true)
}

const trackedField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(set, tr) {
    for (const e of tr.effects) if (e.is(setTracked)) return decorations(e.value, tr.state.doc.length)
    return set.map(tr.changes)
  },
  provide: (field) => EditorView.decorations.from(field),
})

/** The extension the editor needs for tracked changes. */
export const trackedExtension: Extension = trackedField

/** Tracked changes of `text` drawn in `view`. */
export function codeMirrorTracked(view: EditorView, text: Y.Text): TrackedMarks {
  return {
    editorPosition: (node, index) => (node === text ? index : undefined),
    show: (marks) => view.dispatch({ effects: setTracked.of(marks) }),
  }
}
