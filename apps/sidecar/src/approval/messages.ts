/**
 * The two Note-to-Self texts of the approval from the phone (decision 0039): the list of an
 * agent's suggestions, numbered, with the quoted before and after; and the receipt of a reply.
 * Quotes and notes are cut to one line of {@link APPROVAL_TEXT}.quoteChars characters. No document
 * id, port or token is in them. Pure.
 */

export const APPROVAL_TEXT = {
  /** Characters of a quote, a replacement or a note, on one line. */
  quoteChars: 80,
  /** Characters of the title and of the agent's name. */
  titleChars: 80,
  nameChars: 64,
} as const

/** One suggestion of a list, as the message shows it. */
export interface ListedItem {
  readonly find: string
  readonly replace: string
  readonly note?: string | undefined
}

/** Why an item of a reply was not decided. */
export type Refusal =
  | { readonly n: number; readonly why: 'absent'; readonly count: number }
  | { readonly n: number; readonly why: 'decided'; readonly status: string }
  | { readonly n: number; readonly why: 'stale' }
  | { readonly n: number; readonly why: 'failed' }

/** `text` on one line (runs of white space as one space), at most `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const chars = [...flat]
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`
}

const quoted = (text: string) => `“${oneLine(text, APPROVAL_TEXT.quoteChars)}”`
const titled = (title: string | undefined) =>
  title === undefined || title.trim() === '' ? 'a document' : `“${oneLine(title, APPROVAL_TEXT.titleChars)}”`

function line(n: number, item: ListedItem): string {
  const change = item.replace === '' ? `delete ${quoted(item.find)}` : `${quoted(item.find)} → ${quoted(item.replace)}`
  const note =
    item.note === undefined || item.note.trim() === '' ? '' : ` (${oneLine(item.note, APPROVAL_TEXT.quoteChars)})`
  return `${n}. ${change}${note}`
}

/** "Claude suggests 2 changes in “Trip plan”:", the numbered lines, and how to reply. */
export function listText(m: {
  agent: string
  title: string | undefined
  items: readonly ListedItem[]
  /** Suggestions left out of the list (past its bound): decided on the page. */
  more?: number
}): string {
  const count = m.items.length + (m.more ?? 0)
  const head = `${oneLine(m.agent, APPROVAL_TEXT.nameChars)} suggests ${count} change${count === 1 ? '' : 's'} in ${titled(m.title)}:`
  const lines = m.items.map((item, i) => line(i + 1, item))
  const more = m.more === undefined || m.more === 0 ? [] : [`(${m.more} more on the page)`]
  const reply =
    m.items.length === 1
      ? 'Reply “accept 1” or “reject 1”.'
      : `Reply “accept 1”, “reject ${m.items.length}” or “accept all”.`
  return [head, ...lines, ...more, reply].join('\n')
}

function refusalLine(r: Refusal): string {
  switch (r.why) {
    case 'absent':
      return `${r.n} is not in the list (it has ${r.count})`
    case 'decided':
      return `${r.n} was already ${r.status}`
    case 'stale':
      return `${r.n} is stale: the text changed`
    case 'failed':
      return `${r.n} was not applied: try again on the page`
  }
}

/** "✅ accepted 1 of 2 in “Trip plan”", then a line per item not decided. */
export function receiptText(m: {
  verb: 'accept' | 'reject'
  title: string | undefined
  done: number
  of: number
  refusals: readonly Refusal[]
}): string {
  const mark = m.done > 0 ? '✅' : '❌'
  const head = `${mark} ${m.verb}ed ${m.done} of ${m.of} in ${titled(m.title)}`
  return [head, ...m.refusals.map(refusalLine)].join('\n')
}

/** The receipt when this account may not decide in the document: nothing was applied. */
export function notEditorText(title: string | undefined): string {
  return `❌ nothing applied in ${titled(title)}: only its editors accept or reject suggestions`
}

/** The receipt to a command when no list is waiting for a reply. */
export const NOTHING_WAITING = '❌ no suggestions are waiting for a reply'

/** The receipt when the listed document is no longer served here: nothing was applied. */
export function notServedText(title: string | undefined): string {
  return `❌ nothing applied in ${titled(title)}: this computer no longer serves it`
}
