import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { arbEnvelope, codeOf, DOC_ID, MESSAGE_ID, sampleEnvelope, SENDER_ID } from '../test/fixtures.ts'
import { decodeEnvelope, encodeEnvelope, envelopeByteLength, FIXED_HEADER_BYTES } from './envelope.ts'
import { isProtocolError } from './errors.ts'
import { FLAGS, KINDS } from './kinds.ts'

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const fromHex = (text: string): Uint8Array => Uint8Array.from(text.match(/../g) ?? [], (h) => Number.parseInt(h, 16))
const ids = (DOC_ID + SENDER_ID + MESSAGE_ID).replaceAll('-', '')

describe('envelope layout', () => {
  it('writes magic, version, kind, flags, three ids, varint seq, varint length and payload in that order', () => {
    const frame = encodeEnvelope(sampleEnvelope({ flags: FLAGS.ackRequested, seq: 300 }))
    // 300 = 0b10_0101100 → LEB128 ac 02
    expect(hex(frame)).toBe(`e2c0010101${ids}ac0203010203`)
    expect(frame.length).toBe(envelopeByteLength(300, 3))
  })

  it('decodes every field back from the hand-written frame', () => {
    const decoded = decodeEnvelope(fromHex(`e2c0013302${ids}0000`))
    expect(decoded).toEqual({
      kind: 'chat-status',
      flags: FLAGS.retransmit,
      docId: DOC_ID,
      senderId: SENDER_ID,
      messageId: MESSAGE_ID,
      seq: 0,
      payload: new Uint8Array(0),
    })
  })

  it('round-trips random envelopes of every kind byte for byte', () => {
    fc.assert(
      fc.property(arbEnvelope(), (envelope) => {
        const frame = encodeEnvelope(envelope)
        const decoded = decodeEnvelope(frame)
        expect(decoded).toEqual(envelope)
        expect(encodeEnvelope(decoded)).toEqual(frame)
      }),
    )
  })
})

const onlyProtocolErrors = (bytes: Uint8Array): void => {
  try {
    decodeEnvelope(bytes, { maxPayloadBytes: 4096 })
  } catch (error) {
    expect(isProtocolError(error)).toBe(true)
  }
}

describe('decodeEnvelope rejects bad frames, each with its own code', () => {
  const good = encodeEnvelope(sampleEnvelope())
  const withByte = (offset: number, value: number): Uint8Array => {
    const copy = good.slice()
    copy[offset] = value
    return copy
  }
  const header = good.subarray(0, FIXED_HEADER_BYTES)
  const frameWith = (...tail: number[]): Uint8Array => Uint8Array.from([...header, ...tail])

  it('PROTO_BAD_MAGIC for a foreign first byte', () => {
    expect(codeOf(() => decodeEnvelope(withByte(0, 0x7b)))).toBe('ProtocolError:PROTO_BAD_MAGIC')
  })
  it('PROTO_UNSUPPORTED_VERSION for version 2', () => {
    expect(codeOf(() => decodeEnvelope(withByte(2, 2)))).toBe('ProtocolError:PROTO_UNSUPPORTED_VERSION')
  })
  it('PROTO_UNKNOWN_KIND for a code outside the table', () => {
    expect(codeOf(() => decodeEnvelope(withByte(3, 0x7f)))).toBe('ProtocolError:PROTO_UNKNOWN_KIND')
  })
  it('PROTO_UNKNOWN_FLAGS for an undefined flag bit', () => {
    expect(codeOf(() => decodeEnvelope(withByte(4, 0x80)))).toBe('ProtocolError:PROTO_UNKNOWN_FLAGS')
  })
  it('PROTO_TRUNCATED for a frame missing its last byte', () => {
    expect(codeOf(() => decodeEnvelope(good.subarray(0, good.length - 1)))).toBe('ProtocolError:PROTO_TRUNCATED')
  })
  it('PROTO_TRAILING_BYTES for a byte after the payload', () => {
    expect(codeOf(() => decodeEnvelope(Uint8Array.from([...good, 0])))).toBe('ProtocolError:PROTO_TRAILING_BYTES')
  })
  it('PROTO_NON_CANONICAL_VARINT for an overlong seq', () => {
    expect(codeOf(() => decodeEnvelope(frameWith(0x87, 0x00, 0x00)))).toBe('ProtocolError:PROTO_NON_CANONICAL_VARINT')
  })
  it('PROTO_SEQ_OVERFLOW for a seq of 2^53', () => {
    expect(codeOf(() => decodeEnvelope(frameWith(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00)))).toBe(
      'ProtocolError:PROTO_SEQ_OVERFLOW',
    )
  })
  it('PROTO_LENGTH_OVERFLOW for a payload length of 2^32', () => {
    expect(codeOf(() => decodeEnvelope(frameWith(0x00, 0x80, 0x80, 0x80, 0x80, 0x10)))).toBe(
      'ProtocolError:PROTO_LENGTH_OVERFLOW',
    )
  })
  it('PROTO_PAYLOAD_TOO_LARGE for a payload over the configured limit, before reading it', () => {
    // The declared 1 MiB payload is absent: the limit check must come first.
    expect(codeOf(() => decodeEnvelope(frameWith(0x00, 0x80, 0x80, 0x40), { maxPayloadBytes: 1024 }))).toBe(
      'ProtocolError:PROTO_PAYLOAD_TOO_LARGE',
    )
    expect(codeOf(() => decodeEnvelope(good, { maxPayloadBytes: 2 }))).toBe('ProtocolError:PROTO_PAYLOAD_TOO_LARGE')
    expect(decodeEnvelope(good, { maxPayloadBytes: 3 }).payload).toEqual(Uint8Array.of(1, 2, 3))
  })
  it('PROTO_INVALID_OPTION for a negative payload limit', () => {
    expect(codeOf(() => decodeEnvelope(good, { maxPayloadBytes: -1 }))).toBe('ProtocolError:PROTO_INVALID_OPTION')
  })
  it('never reads a non-Uint8Array', () => {
    expect(codeOf(() => decodeEnvelope('e2c0' as unknown as Uint8Array))).toBe('ProtocolError:PROTO_INVALID_FIELD')
  })

  it('PROTO_TRUNCATED at every cut of valid frames', () => {
    fc.assert(
      fc.property(arbEnvelope(undefined, 64), fc.nat(), (envelope, cut) => {
        const frame = encodeEnvelope(envelope)
        const at = cut % frame.length
        expect(codeOf(() => decodeEnvelope(frame.subarray(0, at)))).toBe('ProtocolError:PROTO_TRUNCATED')
      }),
    )
    // And exhaustively for one frame with a multi-byte seq and length.
    const frame = encodeEnvelope(sampleEnvelope({ seq: 2 ** 40, payload: new Uint8Array(200) }))
    for (let at = 0; at < frame.length; at++) {
      expect(codeOf(() => decodeEnvelope(frame.subarray(0, at)))).toBe('ProtocolError:PROTO_TRUNCATED')
    }
  })

  it('throws only ProtocolError for random and mutated bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), onlyProtocolErrors))
    fc.assert(
      fc.property(
        arbEnvelope(undefined, 64),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        (envelope, edits) => {
          const frame = encodeEnvelope(envelope)
          for (const [at, value] of edits) frame[at % frame.length] = value
          onlyProtocolErrors(frame)
        },
      ),
    )
  })
})

describe('encodeEnvelope refuses invalid fields with PROTO_INVALID_FIELD', () => {
  it.each([
    ['an upper-case docId', { docId: DOC_ID.toUpperCase() }],
    ['a senderId without dashes', { senderId: SENDER_ID.replaceAll('-', '') }],
    ['a short messageId', { messageId: 'abcd' }],
    ['an unknown kind', { kind: 'nope' as never }],
    ['an unknown flag bit', { flags: 0x08 }],
    ['a negative seq', { seq: -1 }],
    ['a seq beyond 2^53 − 1', { seq: 2 ** 53 }],
    ['a non-byte payload', { payload: [1, 2] as unknown as Uint8Array }],
  ])('%s', (_name, override) => {
    expect(codeOf(() => encodeEnvelope(sampleEnvelope(override)))).toBe('ProtocolError:PROTO_INVALID_FIELD')
  })

  it('accepts every kind in the table', () => {
    for (const kind of Object.keys(KINDS) as (keyof typeof KINDS)[]) {
      expect(encodeEnvelope(sampleEnvelope({ kind }))[3]).toBe(KINDS[kind].code)
    }
  })
})
