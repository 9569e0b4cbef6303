/**
 * Presence bound to authors (docs/decisions/0023): a member's awareness payload may carry states
 * (and removals) only for client ids that are its own: under its author tag, or a legacy id bound
 * to it. The others are cut out before the mirror or any page sees them, so no member can remove,
 * move or rename another's caret. The awareness wire form (y-protocols): `varUint count`, then per
 * state `varUint clientID • varUint clock • varString json`. Pure.
 */

/** The states of `payload` that `allowed` lets through, how many and how many were cut; undefined when malformed. */
export function keepOwnStates(
  payload: Uint8Array,
  allowed: (clientId: number) => boolean,
): { payload: Uint8Array; kept: number; refused: number } | undefined {
  const r = { at: 0 }
  const kept: Uint8Array[] = []
  let refused = 0
  const count = readVarUint(payload, r)
  if (count === undefined) return undefined
  for (let i = 0; i < count; i += 1) {
    const start = r.at
    const client = readVarUint(payload, r)
    const clock = readVarUint(payload, r)
    const len = readVarUint(payload, r)
    if (client === undefined || clock === undefined || len === undefined || r.at + len > payload.length)
      return undefined
    r.at += len
    if (allowed(client)) kept.push(payload.subarray(start, r.at))
    else refused += 1
  }
  if (r.at !== payload.length) return undefined
  if (refused === 0) return { payload, kept: kept.length, refused }
  const head = writeVarUint(kept.length)
  const out = new Uint8Array(head.length + kept.reduce((n, k) => n + k.length, 0))
  out.set(head, 0)
  let at = head.length
  for (const k of kept) {
    out.set(k, at)
    at += k.length
  }
  return { payload: out, kept: kept.length, refused }
}

// lib0's varUint: 7 bits a byte, least significant first; numbers up to 2^53 - 1.
function readVarUint(bytes: Uint8Array, r: { at: number }): number | undefined {
  let n = 0
  let mult = 1
  for (;;) {
    const b = bytes[r.at]
    if (b === undefined) return undefined
    r.at += 1
    n += (b & 0x7f) * mult
    if (b < 0x80) return Number.isSafeInteger(n) ? n : undefined
    mult *= 128
    if (mult > 2 ** 56) return undefined
  }
}

function writeVarUint(n: number): Uint8Array {
  const out: number[] = []
  let rest = n
  while (rest > 0x7f) {
    out.push(0x80 | (rest % 128))
    rest = Math.floor(rest / 128)
  }
  out.push(rest)
  return Uint8Array.from(out)
}
