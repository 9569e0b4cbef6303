/**
 * The base token: the document state an agent read, as a Yjs snapshot (state vector and delete
 * set) in base64url. With it the sidecar tells whether the text a suggestion quotes is still what
 * the agent saw, without keeping old versions: every character of the quote must have existed at
 * base (its clock below the state vector), and nothing between its first and last character that
 * was visible at base may have been deleted since. Yjs never undeletes, so a character visible now
 * and written before base was visible at base.
 */
import * as Y from 'yjs'
import { ReviewError } from './errors.ts'
import { REVIEW_LIMITS } from './limits.ts'

function toBase64Url(bytes: Uint8Array): string {
  let bin = ''
  for (const b of bytes) bin += String.fromCharCode(b)
  return btoa(bin).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url')
  const bin = atob(text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4))
  return Uint8Array.from(bin, (c) => c.charCodeAt(0))
}

/** The base token of `doc` as it is now. */
export const baseOf = (doc: Y.Doc): string => {
  const snap = Y.encodeSnapshot(Y.snapshot(doc))
  const out = new Uint8Array(snap.length + 1)
  out[0] = BASE_VERSION
  out.set(snap, 1)
  return toBase64Url(out)
}

/** The token's first byte: a token of another version (or none) is refused, not misread. */
const BASE_VERSION = 1

/** @throws ReviewError `REVIEW_BAD_BASE` when `token` is over its bound or not a snapshot. */
export function decodeBase(token: unknown): Y.Snapshot {
  if (typeof token !== 'string' || token === '' || token.length > REVIEW_LIMITS.maxBaseChars)
    throw new ReviewError('REVIEW_BAD_BASE', 'base must be the token the text was read with')
  let snap: Y.Snapshot | undefined
  try {
    const bytes = fromBase64Url(token)
    const body = bytes.subarray(1)
    snap = bytes[0] === BASE_VERSION ? Y.decodeSnapshot(body) : undefined
    // Canonical only: what Yjs writes for the snapshot read, byte for byte (no trailing bytes).
    const again = snap === undefined ? undefined : Y.encodeSnapshot(snap)
    if (again === undefined || again.length !== body.length || again.some((b, i) => b !== body[i])) snap = undefined
  } catch {
    snap = undefined
  }
  if (snap === undefined) throw new ReviewError('REVIEW_BAD_BASE', 'base is not a token this sidecar wrote')
  return snap
}

/** True when every clock of [from, to) of `client` lies in the delete set's ranges (sorted). */
function allDeletedAt(ds: Y.Snapshot['ds'], client: number, from: number, to: number): boolean {
  let at = from
  for (const r of ds.clients.get(client) ?? []) {
    if (r.clock > at) return false
    if (r.clock + r.len > at) at = r.clock + r.len
    if (at >= to) return true
  }
  return at >= to
}

/**
 * True when the `len` characters at `index` of `node` are what they were at `base`: written before
 * it, and nothing visible at base deleted from between them since.
 */
export function unchangedSince(node: Y.Text, index: number, len: number, base: Y.Snapshot): boolean {
  const end = index + len
  let pos = 0
  let started = false
  // oxlint-disable-next-line no-underscore-dangle -- the items (ids, deleted ones too) are walked from here
  for (let item = node._start; item !== null && pos < end; item = item.right) {
    const known = base.sv.get(item.id.client) ?? 0
    if (!item.deleted && item.countable) {
      const from = Math.max(index, pos)
      const to = Math.min(end, pos + item.length)
      if (to > from) {
        started = true
        if (item.id.clock + (to - pos) > known) return false
      }
      pos += item.length
    } else if (started && item.deleted && item.countable) {
      const visibleAtBase = Math.min(known, item.id.clock + item.length)
      if (visibleAtBase > item.id.clock && !allDeletedAt(base.ds, item.id.client, item.id.clock, visibleAtBase))
        return false
    }
  }
  return started || len === 0
}
