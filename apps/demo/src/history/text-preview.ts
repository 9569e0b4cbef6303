/**
 * The plain-text page's preview of a version: a read-only CodeMirror over the version's text
 * (the `text` root), with what a restore brings back highlighted and what it removes shown struck
 * through where it stands now.
 */
import { EditorState } from '@codemirror/state'
import { Decoration, EditorView, WidgetType } from '@codemirror/view'
import * as Y from 'yjs'
import type { Preview } from './history-panel.ts'
import { textChanges } from './text-changes.ts'

class GoneText extends WidgetType {
  readonly text: string
  constructor(text: string) {
    super()
    this.text = text
  }
  override eq(other: GoneText): boolean {
    return other.text === this.text
  }
  toDOM(): HTMLElement {
    const del = document.createElement('del')
    del.className = 'history-gone'
    del.textContent = this.text
    return del
  }
}

/** A preview in `parent` of the root `root`, diffed against `now()` (the live text). */
export function textPreview(parent: HTMLElement, root: string, now: () => string): Preview {
  let view: EditorView | undefined
  return {
    show(update) {
      const doc = new Y.Doc()
      Y.applyUpdate(doc, update)
      const changes = textChanges(now(), doc.getText(root).toString())
      doc.destroy()
      const marks = [
        ...changes.back.map((r) => Decoration.mark({ class: 'history-back' }).range(r.from, r.to)),
        ...changes.gone.map((g) => Decoration.widget({ widget: new GoneText(g.text), side: -1 }).range(g.at)),
      ]
      view?.destroy()
      view = new EditorView({
        parent,
        state: EditorState.create({
          doc: changes.text,
          extensions: [
            EditorState.readOnly.of(true),
            EditorView.editable.of(false),
            EditorView.lineWrapping,
            EditorView.decorations.of(Decoration.set(marks, true)),
          ],
        }),
      })
    },
    hide() {
      view?.destroy()
      view = undefined
    },
  }
}
