/**
 * A member's delete set may delete only what exists: clocks the replica holds or the same message
 * carries. Yjs keeps a deletion of clocks nobody wrote yet (pendingDs) and applies it when they
 * arrive, so without this a member could (a) delete another page's text before it is typed, on
 * every replica, and (b) grow the pending deletions without bound: Yjs re-reads them on every later
 * update, and every page's flush (`Y.encodeStateAsUpdate`) carries them to the group again, in
 * every edit of every member. What is cut here is not lost when honest: each page's update carries
 * its document's whole delete set, so a deletion that came ahead of its text comes again with the
 * next edit once the text is held.
 * @see docs/decisions/0023-account-derived-client-ids.md
 */
import * as Y from 'yjs'

export type Placed = { readonly ok: true; readonly update: Uint8Array; readonly cut: number } | { readonly ok: false }

function writeVarUint(out: number[], n: number): void {
  let rest = n
  while (rest > 0x7f) {
    out.push(0x80 | (rest % 128))
    rest = Math.floor(rest / 128)
  }
  out.push(rest)
}

type Ranges = ReadonlyMap<number, readonly { clock: number; len: number }[]>

/** The v1 encoding of a delete set, clients in the order given (Yjs's own order when read from it). */
function encodeDeleteSet(clients: Ranges): Uint8Array {
  const out: number[] = []
  writeVarUint(out, clients.size)
  for (const [client, items] of clients) {
    writeVarUint(out, client)
    writeVarUint(out, items.length)
    for (const i of items) {
      writeVarUint(out, i.clock)
      writeVarUint(out, i.len)
    }
  }
  return Uint8Array.from(out)
}

/**
 * `update` with its delete set cut to the clocks below `placeable(client)`; `cut` counts the ranges
 * shortened or dropped (0: `update` itself, unchanged). Not ok when it is not a Yjs update, or its
 * delete set is not written as Yjs writes one (so it cannot be cut).
 */
export function placeableDeletes(update: Uint8Array, placeable: (client: number) => number): Placed {
  let ds: Ranges
  try {
    ds = Y.decodeUpdate(update).ds.clients
  } catch {
    return { ok: false }
  }
  let cut = 0
  const kept = new Map<number, { clock: number; len: number }[]>()
  for (const [client, items] of ds) {
    const bound = placeable(client)
    const mine: { clock: number; len: number }[] = []
    for (const i of items) {
      const len = Math.min(i.len, bound - i.clock)
      if (len < i.len) cut += 1
      if (len > 0) mine.push({ clock: i.clock, len })
    }
    if (mine.length > 0) kept.set(client, mine)
  }
  if (cut === 0) return { ok: true, update, cut }
  const whole = encodeDeleteSet(ds)
  const start = update.length - whole.length
  if (start < 0 || whole.some((b, i) => update[start + i] !== b)) return { ok: false }
  const head = update.subarray(0, start)
  const tail = encodeDeleteSet(kept)
  const out = new Uint8Array(head.length + tail.length)
  out.set(head, 0)
  out.set(tail, head.length)
  return { ok: true, update: out, cut }
}
