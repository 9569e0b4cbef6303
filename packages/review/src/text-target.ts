/**
 * A document's text as an agent reads it, and the way back from an offset in that text to a Yjs
 * text node. A `Y.Text` is one node; a `Y.XmlFragment` (the rich page's bindings) is read block by
 * block, each `Y.XmlText` a node, blocks separated by a newline. An embed counts as U+FFFC so that
 * offsets in the text are offsets in the node.
 */
import * as Y from 'yjs'
import type { Target } from './structure.ts'

/** One text node and where its text starts in the whole. */
export interface Segment {
  readonly node: Y.Text
  readonly from: number
  readonly text: string
}

export interface Extracted {
  /** Plain text: what `find` is matched against. */
  readonly text: string
  /** Markdown where the binding has structure (a fragment); the plain text for a `Y.Text`. */
  readonly markdown: string
  readonly segments: readonly Segment[]
}

const OBJECT = '\uFFFC'

/** The text of one node, embeds as U+FFFC, with its Markdown (bold, italic, code marks). */
export function nodeText(node: Y.Text): { plain: string; md: string } {
  let plain = ''
  let md = ''
  for (const op of node.toDelta() as { insert: unknown; attributes?: Record<string, unknown> }[]) {
    const s = typeof op.insert === 'string' ? op.insert : OBJECT
    plain += s
    const a = op.attributes ?? {}
    let m = s
    if (a['code'] !== undefined) m = `\`${m}\``
    if (a['italic'] !== undefined || a['em'] !== undefined) m = `*${m}*`
    if (a['bold'] !== undefined || a['strong'] !== undefined) m = `**${m}**`
    md += m
  }
  return { plain, md }
}

function blockPrefix(el: Y.XmlElement, depth: number, index: number): string {
  const name = el.nodeName.toLowerCase()
  const level = Number(el.getAttribute('level') ?? 1)
  if (name === 'heading') return `${'#'.repeat(Math.min(6, Math.max(1, level)))} `
  if (/^h[1-6]$/.test(name)) return `${'#'.repeat(Number(name[1]))} `
  if (name === 'listitem' || name === 'list_item' || name === 'bulletlistitem') return `${'  '.repeat(depth)}- `
  if (name === 'numberedlistitem') return `${'  '.repeat(depth)}${index + 1}. `
  if (name === 'blockquote' || name === 'quote') return '> '
  return ''
}

interface Walk {
  plain: string[]
  md: string[]
  segments: Segment[]
  at: number
}

/** Appends one block (a line); blocks are joined by '\n', so each line after the first adds one. */
function line(w: Walk, node: Y.Text, prefix: string, fence: boolean): void {
  const { plain, md } = nodeText(node)
  if (w.plain.length > 0) w.at += 1
  w.segments.push({ node, from: w.at, text: plain })
  w.plain.push(plain)
  w.md.push(fence ? `\`\`\`\n${plain}\n\`\`\`` : prefix + md)
  w.at += plain.length
}

function walkElement(w: Walk, el: Y.XmlElement | Y.XmlFragment, depth: number, prefix: string): void {
  let index = 0
  for (const child of el.toArray()) {
    if (child instanceof Y.XmlText) line(w, child, prefix, el instanceof Y.XmlElement && isCode(el))
    else if (child instanceof Y.XmlElement) {
      const nested = /list$/i.test(child.nodeName) ? depth + 1 : depth
      walkElement(w, child, nested, prefix + blockPrefix(child, depth, index))
      index += 1
    }
  }
}

const isCode = (el: Y.XmlElement): boolean => /^code_?block$/i.test(el.nodeName) || el.nodeName === 'codeBlock'

/** The text of `target` in `doc` (an absent root reads as empty). */
export function extract(doc: Y.Doc, target: Target): Extracted {
  if (target.kind === 'text') {
    const node = doc.getText(target.name)
    const { plain } = nodeText(node)
    return { text: plain, markdown: plain, segments: [{ node, from: 0, text: plain }] }
  }
  const w: Walk = { plain: [], md: [], segments: [], at: 0 }
  walkElement(w, doc.getXmlFragment(target.name), 0, '')
  return { text: w.plain.join('\n'), markdown: w.md.join('\n'), segments: w.segments }
}

/** The segment holding the whole range [from, from+len), or undefined when it spans two. */
export function segmentOf(segments: readonly Segment[], from: number, len: number): Segment | undefined {
  return segments.find((s) => from >= s.from && from + len <= s.from + s.text.length)
}

/** Every start index of `find` in `text` (overlapping ones too), at most `limit` of them. */
export function occurrences(text: string, find: string, limit: number): number[] {
  const out: number[] = []
  let i = text.indexOf(find)
  while (i !== -1 && out.length < limit) {
    out.push(i)
    i = text.indexOf(find, i + 1)
  }
  return out
}
