/**
 * Suggest mode on the CodeMirror page: while it is on, the person's typing does not edit the
 * document; it becomes a draft suggestion, drawn in their colour as a tracked change (the text
 * they replace struck, what they type underlined). Enter sends it through their sidecar
 * (`POST …/suggestions`, quoting a range widened until it is unique: quote.ts), Escape drops it.
 * Remote edits still apply, and the draft's range follows them.
 */
import { EditorState, Prec, StateEffect, StateField, type Extension } from '@codemirror/state'
import { Decoration, EditorView, keymap, WidgetType, type DecorationSet } from '@codemirror/view'
import { suggestionFor } from './quote.ts'

export interface Draft {
  readonly from: number
  readonly to: number
  readonly typed: string
}

interface Suggesting {
  readonly on: boolean
  readonly draft: Draft | null
}

const setOn = StateEffect.define<boolean>()
const setDraft = StateEffect.define<Draft | null>()

const suggestField = StateField.define<Suggesting>({
  create: () => ({ on: false, draft: null }),
  update(s, tr) {
    let next = s
    if (s.draft !== null && tr.docChanged)
      next = {
        ...next,
        draft: { ...s.draft, from: tr.changes.mapPos(s.draft.from, 1), to: tr.changes.mapPos(s.draft.to, -1) },
      }
    for (const e of tr.effects) {
      if (e.is(setOn)) next = { on: e.value, draft: null }
      if (e.is(setDraft)) next = { ...next, draft: e.value }
    }
    return next
  },
})

/** The draft after one change the person made (`[fromA, toA)` replaced by `text`). */
export function nextDraft(draft: Draft | null, fromA: number, toA: number, text: string): Draft {
  if (draft !== null && fromA === toA && fromA === draft.to) return { ...draft, typed: draft.typed + text }
  if (draft !== null && text === '' && toA === draft.to && draft.typed !== '')
    return { ...draft, typed: draft.typed.slice(0, Math.max(0, draft.typed.length - (toA - fromA))) }
  if (draft !== null && text === '' && draft.typed === '' && toA >= draft.from && fromA <= draft.to)
    return { from: Math.min(fromA, draft.from), to: Math.max(toA, draft.to), typed: '' }
  return { from: fromA, to: toA, typed: text }
}

// The person's own edits become the draft; everything else (remote changes, the draft's effects) passes.
const intoDraft = EditorState.transactionFilter.of((tr) => {
  const s = tr.startState.field(suggestField, false)
  if (s?.on !== true || !tr.docChanged || !(tr.isUserEvent('input') || tr.isUserEvent('delete'))) return tr
  let draft = s.draft
  tr.changes.iterChanges((fromA, toA, _fromB, _toB, inserted) => {
    draft = nextDraft(draft, fromA, toA, inserted.toString())
  })
  if (draft === null) return tr
  const d: Draft = draft
  return { effects: setDraft.of(d), selection: { anchor: d.to }, scrollIntoView: true }
})

class Typed extends WidgetType {
  readonly typed: string
  readonly colour: string
  constructor(typed: string, colour: string) {
    super()
    this.typed = typed
    this.colour = colour
  }
  override eq(other: Typed): boolean {
    return other.typed === this.typed && other.colour === this.colour
  }
  toDOM(): HTMLElement {
    const ins = document.createElement('ins')
    ins.className = 'suggest-ins suggest-draft'
    ins.textContent = this.typed
    ins.style.setProperty('--suggest-colour', this.colour)
    return ins
  }
}

function draftDecorations(colour: string): Extension {
  return EditorView.decorations.compute([suggestField], (state): DecorationSet => {
    const d = state.field(suggestField).draft
    if (d === null) return Decoration.none
    const out = []
    if (d.from < d.to)
      out.push(
        Decoration.mark({
          class: 'suggest-del suggest-draft',
          attributes: { style: `--suggest-colour: ${colour}` },
        }).range(d.from, d.to),
      )
    if (d.typed !== '') out.push(Decoration.widget({ widget: new Typed(d.typed, colour), side: 1 }).range(d.to))
    return Decoration.set(out, true)
  })
}

export interface SuggestModeOptions {
  /** The person's colour (their presence colour). */
  readonly colour: string
  /** Sends `find` → `replace`; resolves when the sidecar took it, rejects with what to tell the person. */
  send(find: string, replace: string): Promise<void>
  /** Tells the person how the draft stands (undefined: nothing to say). */
  say(text: string | undefined, problem: boolean): void
}

/** The extension for suggest mode, and how to switch it. */
export function suggestMode(o: SuggestModeOptions): {
  extension: Extension
  set(view: EditorView, on: boolean): void
} {
  const send = (view: EditorView): boolean => {
    const s = view.state.field(suggestField)
    if (!s.on || s.draft === null) return false
    const d = s.draft
    const text = view.state.doc.toString()
    const change = (() => {
      const q = { from: d.from, to: d.to }
      return q.from <= q.to && q.to <= text.length ? suggestionFor(text, q.from, q.to, d.typed) : undefined
    })()
    if (change === undefined) {
      o.say('That change cannot be quoted once in the text; select a longer passage and type again.', true)
      return true
    }
    o.send(change.find, change.replace).then(
      () => {
        view.dispatch({ effects: setDraft.of(null) })
        o.say('Suggestion sent.', false)
      },
      (error: unknown) => o.say(error instanceof Error ? error.message : String(error), true),
    )
    return true
  }
  const drop = (view: EditorView): boolean => {
    const s = view.state.field(suggestField)
    if (!s.on || s.draft === null) return false
    view.dispatch({ effects: setDraft.of(null) })
    o.say(undefined, false)
    return true
  }
  return {
    extension: [
      suggestField,
      intoDraft,
      draftDecorations(o.colour),
      Prec.highest(
        keymap.of([
          { key: 'Enter', run: send },
          { key: 'Escape', run: drop },
        ]),
      ),
    ],
    set: (view, on) => view.dispatch({ effects: setOn.of(on) }),
  }
}
