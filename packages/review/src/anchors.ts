/**
 * Ranges that follow concurrent edits: two Yjs relative positions, the start bound to the first
 * character (assoc 0) and the end to the last (assoc −1), so text typed just outside the range
 * stays outside it.
 */
import * as Y from 'yjs'
import type { Anchor } from './structure.ts'

export function anchorOf(node: Y.Text, index: number, len: number): Anchor {
  return {
    start: Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(node, index, 0)),
    end: Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(node, index + len, -1)),
  }
}

/** Where the range is now in `node`: undefined when a bound no longer resolves into `node`. */
export function resolveAnchor(doc: Y.Doc, node: Y.Text, anchor: Anchor): { index: number; len: number } | undefined {
  const at = (json: unknown): number | undefined => {
    // A position naming a root type this document lacks would create it on resolving: refused.
    const tname = typeof json === 'object' && json !== null ? (json as { tname?: unknown }).tname : undefined
    if (tname !== undefined && (typeof tname !== 'string' || !doc.share.has(tname))) return undefined
    try {
      const abs = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(json), doc)
      return abs !== null && abs.type === node ? abs.index : undefined
    } catch {
      return undefined
    }
  }
  const start = at(anchor.start)
  const end = at(anchor.end)
  if (start === undefined || end === undefined) return undefined
  return { index: start, len: Math.max(0, end - start) }
}
