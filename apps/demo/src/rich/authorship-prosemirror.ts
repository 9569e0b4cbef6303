/**
 * "Who wrote this" on the rich-text page: the marks as ProseMirror inline decorations. Each
 * Y.XmlText of the fragment holds a paragraph's text; its runs are placed from where y-prosemirror
 * maps the text's start (its binding's mapping), offsets within the text being the same on both sides.
 */
import { Plugin, PluginKey } from 'prosemirror-state'
import { Decoration, DecorationSet, type EditorView } from 'prosemirror-view'
import { relativePositionToAbsolutePosition, ySyncPluginKey } from 'y-prosemirror'
import * as Y from 'yjs'
import { runsOf } from '../page/authors.ts'
import type { AuthorMark, AuthorMarks } from '../page/authorship-toggle.ts'

const key = new PluginKey<DecorationSet>('e2e-col-authors')

/** The plugin that holds the marks. */
export const authorMarkPlugin = new Plugin<DecorationSet>({
  key,
  state: {
    init: () => DecorationSet.empty,
    apply(tr, set) {
      const marks = tr.getMeta(key) as readonly AuthorMark[] | undefined
      if (marks === undefined) return set.map(tr.mapping, tr.doc)
      const size = tr.doc.content.size
      return DecorationSet.create(
        tr.doc,
        marks
          .filter((m) => m.from < m.to && m.to <= size)
          .map((m) =>
            Decoration.inline(m.from, m.to, {
              class: m.author.verified ? 'pm-author' : 'pm-author pm-author-unverified',
              title: m.author.label,
              'data-author': m.author.label,
              style: `--author-colour: ${m.author.colour}`,
            }),
          ),
      )
    },
  },
  props: { decorations: (state) => key.getState(state) },
})

/** The Y.XmlTexts under `type`, in document order. */
function textsOf(type: Y.XmlFragment | Y.XmlElement): Y.XmlText[] {
  return type
    .toArray()
    .flatMap((child) => (child instanceof Y.XmlText ? [child] : child instanceof Y.XmlElement ? textsOf(child) : []))
}

/** The marks of `fragment` in `view`. */
export function proseMirrorMarks(view: EditorView, doc: Y.Doc, fragment: Y.XmlFragment): AuthorMarks {
  return {
    runs(spans) {
      const mapping = (ySyncPluginKey.getState(view.state) as { binding?: { mapping: unknown } } | undefined)?.binding
        ?.mapping
      if (mapping === undefined) return []
      return textsOf(fragment).flatMap((text) => {
        const start = relativePositionToAbsolutePosition(
          doc,
          fragment,
          Y.createRelativePositionFromTypeIndex(text, 0),
          mapping as Parameters<typeof relativePositionToAbsolutePosition>[3],
        )
        if (start === null) return []
        return runsOf(text, spans).map((r) => ({ ...r, from: start + r.from, to: start + r.to }))
      })
    },
    show: (marks) => view.dispatch(view.state.tr.setMeta(key, marks)),
  }
}
