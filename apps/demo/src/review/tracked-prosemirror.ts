/**
 * Tracked changes on the rich-text page (ProseMirror, as TipTap uses it): each open suggestion's
 * quoted range struck through (an inline decoration) and its replacement underlined right after it
 * (a widget), in the suggester's colour. A suggestion quotes within one Y.XmlText; its editor
 * position is where y-prosemirror maps that text's start, plus the index within it.
 */
import { Plugin, PluginKey } from 'prosemirror-state'
import { Decoration, DecorationSet, type EditorView } from 'prosemirror-view'
import { relativePositionToAbsolutePosition, ySyncPluginKey } from 'y-prosemirror'
import * as Y from 'yjs'
import { hoverText, type Tracked } from './tracked.ts'
import type { TrackedMark, TrackedMarks } from './mount-review.ts'

const key = new PluginKey<DecorationSet>('e2e-col-tracked')

const attrsOf = (t: Tracked): Record<string, string> => ({
  title: hoverText(t),
  'data-suggestion': t.id,
  'data-by': t.by,
  style: `--suggest-colour: ${t.colour}`,
})

function insertion(t: Tracked): HTMLElement {
  const ins = document.createElement('ins')
  ins.className = t.stale ? 'suggest-ins suggest-stale' : 'suggest-ins'
  ins.textContent = t.replace
  for (const [k, v] of Object.entries(attrsOf(t))) ins.setAttribute(k, v)
  return ins
}

/** The plugin that holds the tracked changes. */
export const trackedPlugin = new Plugin<DecorationSet>({
  key,
  state: {
    init: () => DecorationSet.empty,
    apply(tr, set) {
      const marks = tr.getMeta(key) as readonly TrackedMark[] | undefined
      if (marks === undefined) return set.map(tr.mapping, tr.doc)
      const size = tr.doc.content.size
      return DecorationSet.create(
        tr.doc,
        marks
          .filter((m) => m.from <= m.to && m.to <= size)
          .flatMap(({ tracked: t, from, to }) => [
            ...(from < to
              ? [
                  Decoration.inline(from, to, {
                    class: t.stale ? 'suggest-del suggest-stale' : 'suggest-del',
                    ...attrsOf(t),
                  }),
                ]
              : []),
            ...(t.replace === ''
              ? []
              : [
                  Decoration.widget(to, () => insertion(t), {
                    side: 1,
                    key: `${t.id}:${t.replace}:${hoverText(t)}:${t.colour}`,
                  }),
                ]),
          ]),
      )
    },
  },
  props: { decorations: (state) => key.getState(state) },
})

/** The editor position of `index` in `node` of `fragment`: where y-prosemirror maps the node's start, plus `index`. */
export function proseMirrorPosition(
  view: EditorView,
  doc: Y.Doc,
  fragment: Y.XmlFragment,
  node: Y.Text,
  index: number,
): number | undefined {
  const mapping = (ySyncPluginKey.getState(view.state) as { binding?: { mapping: unknown } } | undefined)?.binding
    ?.mapping
  if (mapping === undefined) return undefined
  const start = relativePositionToAbsolutePosition(
    doc,
    fragment,
    Y.createRelativePositionFromTypeIndex(node, 0),
    mapping as Parameters<typeof relativePositionToAbsolutePosition>[3],
  )
  return start === null ? undefined : start + index
}

/** Tracked changes of `fragment` drawn in `view`. */
export function proseMirrorTracked(view: EditorView, doc: Y.Doc, fragment: Y.XmlFragment): TrackedMarks {
  return {
    editorPosition: (node, index) => proseMirrorPosition(view, doc, fragment, node, index),
    show: (marks) => view.dispatch(view.state.tr.setMeta(key, marks)),
  }
}
