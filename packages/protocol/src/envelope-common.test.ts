import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { arbEnvelope, codeOf, sampleEnvelope } from '../test/fixtures.ts'
import { decodeChecked, decodeEnvelope, encodeEnvelope, type Envelope } from './envelope.ts'

/** The decoded fields (payload as hex), or the error code. */
function verdict(f: () => Envelope): string {
  let env: Envelope | undefined
  const code = codeOf(() => {
    env = f()
  })
  return env === undefined ? code : JSON.stringify({ ...env, payload: Buffer.from(env.payload).toString('hex') })
}

// Seqs and payload lengths on both sides of the 1-, 2- and 3-byte varint limits of the common path.
const EDGES = [0, 1, 127, 128, 300, 16_383, 16_384, 2 ** 21 - 1, 2 ** 21, 2 ** 28, 2 ** 53 - 1]

describe('decodeEnvelope’s common-frame path', () => {
  it('agrees with the checked decoder on valid frames, including every varint size edge', () => {
    for (const seq of EDGES) {
      for (const length of [0, 1, 127, 128, 16_384]) {
        const frame = encodeEnvelope(sampleEnvelope({ seq, payload: new Uint8Array(length).fill(seq % 251) }))
        expect(verdict(() => decodeEnvelope(frame))).toBe(verdict(() => decodeChecked(frame, 16 * 1024 * 1024)))
      }
    }
  })

  it('agrees with the checked decoder, error code included, on corrupted, cut and extended frames and under any limit', () => {
    fc.assert(
      fc.property(
        arbEnvelope(undefined, 300),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
        fc.integer({ min: -3, max: 3 }),
        fc.nat(400),
        (env, edits, resize, limit) => {
          let frame = encodeEnvelope(env)
          // Corrupt bytes, biased towards the header and varints, then cut or extend the end.
          for (const [at, value] of edits) frame[at % Math.min(frame.length, 60)] = value
          if (resize < 0) frame = frame.subarray(0, Math.max(0, frame.length + resize))
          if (resize > 0) frame = Uint8Array.from([...frame, ...new Uint8Array(resize)])
          expect(verdict(() => decodeEnvelope(frame, { maxPayloadBytes: limit }))).toBe(
            verdict(() => decodeChecked(frame, limit)),
          )
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('rejects overlong varints that the 3-byte window could mistake for short ones', () => {
    const frame = encodeEnvelope(sampleEnvelope({ seq: 5, payload: Uint8Array.of(1) }))
    // seq 5 written as 85 00 (overlong) shifts the payload length one byte on.
    const overlong = Uint8Array.from([...frame.subarray(0, 53), 0x85, 0x00, ...frame.subarray(54)])
    expect(codeOf(() => decodeEnvelope(overlong))).toBe('ProtocolError:PROTO_NON_CANONICAL_VARINT')
  })
})
