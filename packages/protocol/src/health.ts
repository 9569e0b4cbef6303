/**
 * The payload of a `health` envelope: a list of tagged fields, so members can add fields that
 * older readers skip.
 *
 * ```
 * health payload := (varUint(tag) • varUint(length) • bytes[length])*
 * ```
 *
 * Tags in use: `1` = the sender's Yjs state vector for the envelope's document (a sidecar's
 * replica), so a member that received nothing still learns it is behind (docs/contract.md §8.4).
 * An unknown tag is skipped; a tag seen twice keeps its first value. An empty payload (a bare
 * liveness probe) has no fields.
 * @see docs/protocol.md §3.3
 */
import { ByteReader, varUintLength, writeVarUint } from './byte-reader.ts'

/** Field tags of a health payload. Never renumber one, only add. */
export const HEALTH_FIELDS = { stateVector: 1 } as const

/** The fields of a health payload this version reads. */
export interface Health {
  readonly stateVector?: Uint8Array
}

// Fields longer than this are refused: a state vector of 10 000 clients is ~100 KB.
const MAX_FIELD_BYTES = 1024 * 1024

/** Encodes the given fields, in tag order. */
export function encodeHealth(health: Health): Uint8Array {
  const fields: [number, Uint8Array][] = []
  if (health.stateVector !== undefined) fields.push([HEALTH_FIELDS.stateVector, health.stateVector])
  const size = fields.reduce((n, [tag, v]) => n + varUintLength(tag) + varUintLength(v.length) + v.length, 0)
  const out = new Uint8Array(size)
  let at = 0
  for (const [tag, v] of fields) {
    at = writeVarUint(out, at, tag)
    at = writeVarUint(out, at, v.length)
    out.set(v, at)
    at += v.length
  }
  return out
}

/**
 * Decodes a health payload. Field values are views into `payload`.
 * @throws ProtocolError `PROTO_TRUNCATED`, `PROTO_NON_CANONICAL_VARINT` or `PROTO_LENGTH_OVERFLOW`
 */
export function decodeHealth(payload: Uint8Array): Health {
  const r = new ByteReader(payload, 'health payload')
  let stateVector: Uint8Array | undefined
  while (r.remaining > 0) {
    const tag = r.varUint('field tag', Number.MAX_SAFE_INTEGER, 'PROTO_LENGTH_OVERFLOW')
    const length = r.varUint('field length', MAX_FIELD_BYTES, 'PROTO_LENGTH_OVERFLOW')
    const value = r.view(length, 'field value')
    if (tag === HEALTH_FIELDS.stateVector && stateVector === undefined) stateVector = value
  }
  return stateVector === undefined ? {} : { stateVector }
}
