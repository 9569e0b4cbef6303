/**
 * Yjs payloads read strictly: an update or state vector must decode to exactly its length. Yjs's
 * own decoders stop at the end of what they need and ignore anything after it, so a small update
 * padded with megabytes (deflated, a few kilobytes on the wire) would otherwise be stored and fanned
 * out to every page whole.
 * @see docs/sidecar.md §8.2
 */
import { decodeSections } from '@e2e-col/sync'

/**
 * True when `update` is one Yjs v1 update and nothing more, each client in one section (as Yjs
 * writes it), read by Yjs itself (`decodeSections`).
 */
export function isExactUpdate(update: Uint8Array): boolean {
  try {
    const { repeated, exact } = decodeSections(update)
    return !repeated && exact
  } catch {
    return false
  }
}

/** Reads one canonical LEB128 varUint at `at`; undefined when truncated, overlong or above 2^53. */
function varUint(bytes: Uint8Array, at: number): { value: number; next: number } | undefined {
  let value = 0
  let scale = 1
  for (let i = at; i < bytes.length && i < at + 8; i++) {
    const b = bytes[i] ?? 0
    value += (b & 0x7f) * scale
    if (b < 0x80) return (b === 0 && i > at) || !Number.isSafeInteger(value) ? undefined : { value, next: i + 1 }
    scale *= 128
  }
  return undefined
}

/** The state vector in `sv` when it is exactly one encoded Yjs state vector, else undefined. */
export function decodeExactStateVector(sv: Uint8Array): Map<number, number> | undefined {
  const count = varUint(sv, 0)
  if (count === undefined || count.value > sv.length) return undefined
  const out = new Map<number, number>()
  let at = count.next
  for (let i = 0; i < count.value; i++) {
    const client = varUint(sv, at)
    if (client === undefined) return undefined
    const clock = varUint(sv, client.next)
    if (clock === undefined) return undefined
    out.set(client.value, clock.value)
    at = clock.next
  }
  return at === sv.length ? out : undefined
}
