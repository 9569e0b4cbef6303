import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { arbCorruption, arbHostileText, corrupt, nodeCodec, verdict } from '../test/base64-fixtures.ts'
import { codeOf, expectSameBytes, patternBytes, sampleEnvelope } from '../test/fixtures.ts'
import type { Base64Codec } from './base64-codec.ts'
import { BODY_PREFIX, decodeBody, decodeBodyInto, encodeBody, type DecodeBodyOptions } from './body.ts'
import { encodeBodies } from './chunking.ts'
import { decodeEnvelope, encodeEnvelope } from './envelope.ts'
import { usePlatformCodecs } from './platform-codecs.ts'
import { createReassembler } from './reassembler.ts'

afterEach(() => {
  usePlatformCodecs({})
})

describe('decodeBodyInto', () => {
  it('gives decodeBody’s portable verdict and error code for every single-character corruption of a body', () => {
    const scratch = new Uint8Array(64)
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), arbCorruption, (bytes, corruption) => {
        const text = corrupt(encodeBody(bytes), corruption, BODY_PREFIX.length)
        expect(verdict(() => decodeBodyInto(text, scratch, { base64: nodeCodec }))).toBe(
          verdict(() => decodeBody(text)),
        )
      }),
      { numRuns: 2000 },
    )
  })

  it('gives decodeBody’s verdict for arbitrary text over a hostile alphabet, and for foreign or oversized bodies', () => {
    const scratch = new Uint8Array(64)
    fc.assert(
      fc.property(arbHostileText(24), (tail) => {
        const text = BODY_PREFIX + tail
        expect(verdict(() => decodeBodyInto(text, scratch, { base64: nodeCodec }))).toBe(
          verdict(() => decodeBody(text)),
        )
      }),
      { numRuns: 2000 },
    )
    for (const text of ['hello', 'e2e-col:v2:AAAA', BODY_PREFIX, `${BODY_PREFIX}AAAA`]) {
      const options = { base64: nodeCodec, maxBodyChars: 12 }
      expect(verdict(() => decodeBodyInto(text, scratch, options))).toBe(
        verdict(() => decodeBody(text, { maxBodyChars: 12 })),
      )
    }
  })

  it('writes the bytes into the scratch and returns a view of it when the codec can and they fit', () => {
    const scratch = new Uint8Array(32)
    const first = decodeBodyInto(encodeBody(Uint8Array.of(1, 2, 3)), scratch, { base64: nodeCodec })
    expect(first.buffer).toBe(scratch.buffer)
    expect(Array.from(first)).toEqual([1, 2, 3])
    // The view is only good until the scratch is written again: that is the contract.
    decodeBodyInto(encodeBody(Uint8Array.of(9, 8, 7)), scratch, { base64: nodeCodec })
    expect(Array.from(first)).toEqual([9, 8, 7])
  })

  it('returns fresh bytes when they do not fit the scratch, or the codec has no decodeInto, or there is no codec', () => {
    const bytes = patternBytes(100)
    const { decodeInto: _, ...plain } = nodeCodec
    // Without decodeInto (or without a codec) even a scratch the bytes fit is left alone.
    const cases: Array<[DecodeBodyOptions, number]> = [
      [{ base64: nodeCodec }, 99],
      [{ base64: plain }, 99],
      [{ base64: plain }, 100],
      [{}, 99],
      [{}, 100],
    ]
    for (const [options, scratchBytes] of cases) {
      const scratch = new Uint8Array(scratchBytes)
      const out = decodeBodyInto(encodeBody(bytes), scratch, options)
      expect(out.buffer).not.toBe(scratch.buffer)
      expectSameBytes(out, bytes)
    }
  })

  it('does not ask the codec to write bytes that cannot fit the scratch', () => {
    let calls = 0
    const counting: Base64Codec = {
      ...nodeCodec,
      decodeInto: (text, target) => {
        calls++
        return nodeCodec.decodeInto?.(text, target) ?? 0
      },
    }
    decodeBodyInto(encodeBody(patternBytes(9)), new Uint8Array(8), { base64: counting })
    expect(calls).toBe(0)
    decodeBodyInto(encodeBody(patternBytes(8)), new Uint8Array(8), { base64: counting })
    expect(calls).toBe(1)
  })

  it('falls back to the exact decoder when decodeInto reports the wrong count', () => {
    const liar: Base64Codec = {
      ...nodeCodec,
      decodeInto: (text, target) => (nodeCodec.decodeInto?.(text, target) ?? 0) + 1,
    }
    const wrong: Base64Codec = { ...nodeCodec, decodeInto: () => 1 }
    for (const codec of [liar, wrong]) {
      expect(
        Array.from(decodeBodyInto(encodeBody(Uint8Array.of(1, 2, 3)), new Uint8Array(8), { base64: codec })),
      ).toEqual([1, 2, 3])
    }
  })

  it('uses the codec set by usePlatformCodecs when the call passes none', () => {
    usePlatformCodecs({ base64: nodeCodec })
    const scratch = new Uint8Array(8)
    expect(decodeBodyInto(encodeBody(Uint8Array.of(4, 5)), scratch).buffer).toBe(scratch.buffer)
  })

  it('PROTO_INVALID_OPTION for a scratch that is not a Uint8Array, and for a decodeInto that is not a function', () => {
    expect(codeOf(() => decodeBodyInto(encodeBody(Uint8Array.of(1)), [0, 0] as unknown as Uint8Array))).toBe(
      'ProtocolError:PROTO_INVALID_OPTION',
    )
    const broken = { ...nodeCodec, decodeInto: 'yes' } as unknown as Base64Codec
    expect(codeOf(() => usePlatformCodecs({ base64: broken }))).toBe('ProtocolError:PROTO_INVALID_OPTION')
  })

  it('feeds a reassembler from one reused scratch: the reassembler keeps copies, so the frame comes back exact', () => {
    usePlatformCodecs({ base64: nodeCodec })
    const frame = encodeEnvelope(sampleEnvelope({ payload: patternBytes(20_000, 7) }))
    const bodies = encodeBodies(frame, { maxBodyBytes: 2000 })
    expect(bodies.length).toBeGreaterThan(10)
    const scratch = new Uint8Array(2048)
    const r = createReassembler({ maxPartialMessages: 4, maxPartialBytes: 1 << 20, ttlMs: 60_000 })
    // Reversed order also exercises the last chunk arriving first.
    const reversed = bodies.map((_, i) => bodies[bodies.length - 1 - i] ?? '')
    const results = reversed.map((body) => r.push(decodeEnvelope(decodeBodyInto(body, scratch)), 0))
    const last = results.at(-1)
    expect(last?.status).toBe('complete')
    if (last?.status === 'complete') expectSameBytes(last.frame, frame)
  })
})
