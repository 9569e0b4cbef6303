import { randomBytes } from 'node:crypto'
import { crc32 as zlibCrc32 } from 'node:zlib'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { codeOf, expectCrc32AgreesAtOffsets, expectSameBytes, patternBytes, sampleEnvelope } from './fixtures.ts'
import type { Base64Codec } from '../src/base64-codec.ts'
import { BODY_PREFIX, decodeBody, encodeBody } from '../src/body.ts'
import { chunkFrame, encodeBodies } from '../src/chunking.ts'
import { decodeEnvelope, encodeEnvelope } from '../src/envelope.ts'
import { usePlatformCodecs, type PlatformCodecs } from '../src/platform-codecs.ts'
import { createReassembler } from '../src/reassembler.ts'

/**
 * The helpers the sidecar plugs in on Node (Buffer base64, zlib CRC-32) against the portable code.
 * Here rather than beside the source because it imports Node modules, which src/ may not.
 */

const notCrc = (b: Uint8Array): number => b.reduce((a, x) => (a + x) >>> 0, 0)

/** Buffer- and zlib-backed helpers, counting their calls. */
function nodeCodecs(): PlatformCodecs & { calls: { encode: number; decode: number; crc32: number } } {
  const calls = { encode: 0, decode: 0, crc32: 0 }
  return {
    calls,
    base64: {
      encode: (b) => {
        calls.encode++
        return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64')
      },
      decode: (s) => {
        calls.decode++
        return Buffer.from(s, 'base64')
      },
    },
    crc32: (b) => {
      calls.crc32++
      return zlibCrc32(b)
    },
  }
}

afterEach(() => {
  usePlatformCodecs({})
})

describe('usePlatformCodecs', () => {
  it('makes body and chunk functions use the plugged-in helpers, with byte-identical output', () => {
    const frame = encodeEnvelope(sampleEnvelope({ payload: patternBytes(20_000) }))
    const portableBodies = encodeBodies(frame, { maxBodyBytes: 2000 })
    const portableChunks = chunkFrame(frame, { maxBodyBytes: 2000 })
    const codecs = nodeCodecs()
    expect(usePlatformCodecs(codecs)).toEqual({})
    codecs.calls.crc32 = 0 // registration checks known answers
    expect(encodeBodies(frame, { maxBodyBytes: 2000 })).toEqual(portableBodies)
    expect(chunkFrame(frame, { maxBodyBytes: 2000 })).toEqual(portableChunks)
    expect(codecs.calls.encode).toBe(portableBodies.length)
    expect(codecs.calls.crc32).toBe(2)

    const r = createReassembler({ maxPartialMessages: 2, maxPartialBytes: 1 << 20, ttlMs: 1000 })
    const results = portableBodies.map((b) => r.push(decodeEnvelope(decodeBody(b)), 0))
    const last = results.at(-1)
    expect(last?.status).toBe('complete')
    if (last?.status === 'complete') expectSameBytes(last.frame, frame)
    expect(codecs.calls.decode).toBe(portableBodies.length)
    expect(codecs.calls.crc32).toBe(3)
  })

  it('returns the previous helpers, and {} restores the portable code', () => {
    const codecs = nodeCodecs()
    usePlatformCodecs(codecs)
    const previous = usePlatformCodecs({})
    expect(previous.base64).toBe(codecs.base64)
    encodeBody(Uint8Array.of(1, 2, 3))
    expect(codecs.calls.encode).toBe(0)
  })

  it('lets a per-call base64 option override the plugged-in codec', () => {
    const plugged = nodeCodecs()
    const own = nodeCodecs()
    usePlatformCodecs(plugged)
    const body = encodeBody(Uint8Array.of(1, 2, 3), 0, 3, { base64: own.base64 as Base64Codec })
    expect(Array.from(decodeBody(body, { base64: own.base64 as Base64Codec }))).toEqual([1, 2, 3])
    expect(own.calls).toMatchObject({ encode: 1, decode: 1 })
    expect(plugged.calls).toMatchObject({ encode: 0, decode: 0 })
  })

  it('PROTO_INVALID_OPTION for a CRC-32 that gets a known answer wrong or a codec without functions; the old helpers stay', () => {
    const codecs = nodeCodecs()
    usePlatformCodecs(codecs)
    expect(codeOf(() => usePlatformCodecs({ crc32: notCrc }))).toBe('ProtocolError:PROTO_INVALID_OPTION')
    expect(codeOf(() => usePlatformCodecs({ base64: { encode: 'x' } as unknown as Base64Codec }))).toBe(
      'ProtocolError:PROTO_INVALID_OPTION',
    )
    encodeBody(Uint8Array.of(1))
    expect(codecs.calls.encode).toBe(1)
  })

  it('decodeBody gives the same bytes or error code with the Buffer codec as without, on valid and invalid bodies', () => {
    const cases = [
      'e2e-col:v1:AQID',
      'e2e-col:v1:AQI=',
      'e2e-col:v1:',
      'e2e-col:v2:AQID',
      'hello',
      'e2e-col:v1:AQ ID',
      'e2e-col:v1:AQ-_',
      'e2e-col:v1:AQJ=',
      'e2e-col:v1:AQ\u0142D',
      'e2e-col:v1:AQIDA',
      'e2e-col:v1:A===',
      `e2e-col:v1:${'A'.repeat(40)}`,
    ]
    const verdicts = (): string[] =>
      cases.map((c) => {
        let out = ''
        const code = codeOf(() => {
          out = Buffer.from(decodeBody(c, { maxBodyChars: 40 })).toString('hex')
        })
        return out === '' ? code : out
      })
    const portable = verdicts()
    usePlatformCodecs(nodeCodecs())
    expect(verdicts()).toEqual(portable)
    expect(portable.slice(0, 2)).toEqual(['010203', '0102'])
  })

  it('the portable CRC-32 agrees with zlib on large buffers at unaligned offsets', () => {
    expectCrc32AgreesAtOffsets(new Uint8Array(randomBytes(1 << 20)), (b) => zlibCrc32(b))
  })

  it('round-trips random frames of any size through Buffer-backed bodies', () => {
    usePlatformCodecs(nodeCodecs())
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 3000 }), (bytes) => {
        const body = encodeBody(bytes)
        expect(body.startsWith(BODY_PREFIX)).toBe(true)
        expectSameBytes(decodeBody(body), bytes)
      }),
      { numRuns: 200 },
    )
  })
})
