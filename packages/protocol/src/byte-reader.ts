/**
 * A bounds-checked cursor over a `Uint8Array` with strict unsigned LEB128 varints (the same encoding as
 * lib0's `varUint`). Every read checks the remaining length first, so decoding never reads past its
 * input and a short input is always `PROTO_TRUNCATED`. Writers live beside it so the two stay in step.
 */
import { ProtocolError } from './errors.ts'

/** Largest value a varint may carry: JavaScript's safe integer range. */
export const MAX_VARUINT = Number.MAX_SAFE_INTEGER
// 2^53 - 1 needs 8 groups of 7 bits; a ninth byte can only be an overflow.
const MAX_VARUINT_BYTES = 8

/** Number of bytes the canonical varint of `value` takes. */
export function varUintLength(value: number): number {
  let n = 1
  while (value >= 0x80) {
    value = Math.floor(value / 128)
    n++
  }
  return n
}

/** Writes the canonical varint of `value` at `offset`; returns the offset after it. */
export function writeVarUint(target: Uint8Array, offset: number, value: number): number {
  while (value >= 0x80) {
    target[offset++] = (value % 128) | 0x80
    value = Math.floor(value / 128)
  }
  target[offset++] = value
  return offset
}

/** Writes `value` as 4 big-endian bytes at `offset`; returns the offset after it. */
export function writeU32(target: Uint8Array, offset: number, value: number): number {
  target[offset] = value >>> 24
  target[offset + 1] = (value >>> 16) & 0xff
  target[offset + 2] = (value >>> 8) & 0xff
  target[offset + 3] = value & 0xff
  return offset + 4
}

/** The big-endian u32 at `offset`; the caller has checked that 4 bytes exist. */
export function readU32(bytes: Uint8Array, offset: number): number {
  return (
    (bytes[offset] as number) * 0x1000000 +
    (((bytes[offset + 1] as number) << 16) | ((bytes[offset + 2] as number) << 8) | (bytes[offset + 3] as number))
  )
}

/** A read cursor; `what` names the structure in error messages. */
export class ByteReader {
  readonly bytes: Uint8Array
  offset: number
  readonly what: string

  constructor(bytes: Uint8Array, what: string, offset = 0) {
    this.bytes = bytes
    this.offset = offset
    this.what = what
  }

  /** Bytes left after the cursor. */
  get remaining(): number {
    return this.bytes.length - this.offset
  }

  /** @throws ProtocolError `PROTO_TRUNCATED` unless `n` more bytes exist. */
  need(n: number, field: string): void {
    if (this.remaining < n) {
      throw new ProtocolError(
        'PROTO_TRUNCATED',
        `${this.what} truncated: ${field} needs ${n} byte(s) at offset ${this.offset}, ${this.remaining} left`,
      )
    }
  }

  u8(field: string): number {
    this.need(1, field)
    return this.bytes[this.offset++] ?? 0
  }

  u32(field: string): number {
    this.need(4, field)
    const b = this.bytes
    const o = this.offset
    this.offset += 4
    return (b[o] ?? 0) * 0x1000000 + (((b[o + 1] ?? 0) << 16) | ((b[o + 2] ?? 0) << 8) | (b[o + 3] ?? 0))
  }

  /** A view (no copy) of the next `n` bytes. */
  view(n: number, field: string): Uint8Array {
    this.need(n, field)
    const v = this.bytes.subarray(this.offset, this.offset + n)
    this.offset += n
    return v
  }

  /**
   * A canonical varint no larger than `max`.
   *
   * @throws ProtocolError `PROTO_TRUNCATED`, `PROTO_NON_CANONICAL_VARINT` (an overlong form such as
   *   `80 00`), or `overflowCode` when the value exceeds `max`.
   */
  varUint(field: string, max: number, overflowCode: 'PROTO_LENGTH_OVERFLOW' | 'PROTO_SEQ_OVERFLOW'): number {
    const start = this.offset
    let value = 0
    let scale = 1
    for (let i = 0; ; i++) {
      if (i === MAX_VARUINT_BYTES) {
        throw new ProtocolError(overflowCode, `${this.what}: ${field} at offset ${start} exceeds ${max}`)
      }
      const byte = this.u8(field)
      value += (byte & 0x7f) * scale
      if (byte < 0x80) {
        // A zero final group after the first byte means a shorter form existed.
        if (byte === 0 && i > 0) {
          throw new ProtocolError('PROTO_NON_CANONICAL_VARINT', `${this.what}: ${field} at offset ${start} is overlong`)
        }
        break
      }
      scale *= 128
    }
    if (value > max) throw new ProtocolError(overflowCode, `${this.what}: ${field} at offset ${start} exceeds ${max}`)
    return value
  }
}
