import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { BODY_PREFIX, decodeBody, decodeBodyInto, encodeBody, isProtocolError } from '@e2e-col/protocol'
import { describe, expect, it } from 'vitest'
import { NODE_CODECS } from './node-codecs.ts'

const codec = NODE_CODECS.base64
if (codec === undefined) throw new Error('NODE_CODECS has no base64 codec')

/** Bytes as hex, or the protocol error code. */
function verdict(f: () => Uint8Array): string {
  try {
    return `ok:${Buffer.from(f()).toString('hex')}`
  } catch (error) {
    if (isProtocolError(error)) return error.code
    throw error
  }
}

describe('NODE_CODECS', () => {
  it('decodes, into slabs or into a scratch, exactly what Buffer.from does, canonical or not', () => {
    const scratch = new Uint8Array(4096)
    const unit = fc.constantFrom(...'AQgw+/8=-_ \né\u0141'.split(''))
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b).toString('base64')),
          fc.string({ unit, maxLength: 40 }),
        ),
        (text) => {
          const want = Buffer.from(text, 'base64')
          expect(Buffer.from(codec.decode(text)).equals(want)).toBe(true)
          const written = codec.decodeInto?.(text, scratch) ?? -1
          expect(Buffer.from(scratch.subarray(0, written)).equals(want)).toBe(true)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('hands out plain, disjoint views: one result never changes when others are decoded or written', () => {
    const inputs = Array.from({ length: 200 }, (_, i) => randomBytes(1 + ((i * 37) % 1500)))
    const outputs = inputs.map((bytes) => codec.decode(bytes.toString('base64')))
    for (const out of outputs) expect(out.constructor).toBe(Uint8Array)
    for (const out of outputs) out.fill(0xee)
    const again = inputs.map((bytes) => codec.decode(bytes.toString('base64')))
    again.forEach((out, i) => expect(Buffer.from(out).equals(inputs[i] as Buffer)).toBe(true))
    // Large inputs get their own allocation rather than a slab.
    const big = randomBytes(100_000)
    expect(Buffer.from(codec.decode(big.toString('base64'))).equals(big)).toBe(true)
  })

  it('leaves decodeBody and decodeBodyInto as strict as the portable decoder', () => {
    const scratch = new Uint8Array(2048)
    const valid = encodeBody(Uint8Array.of(250, 251, 252, 253))
    for (const tail of ['-_-_', 'QR==', 'QUF=', 'QUF\u0142', 'QUFB QUF', 'QQ==QUFB', valid.slice(BODY_PREFIX.length)]) {
      const text = BODY_PREFIX + tail
      const portable = verdict(() => decodeBody(text))
      expect(verdict(() => decodeBody(text, { base64: codec }))).toBe(portable)
      expect(verdict(() => decodeBodyInto(text, scratch, { base64: codec }))).toBe(portable)
    }
  })
})
