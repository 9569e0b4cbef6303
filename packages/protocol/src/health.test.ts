import { describe, expect, it } from 'vitest'
import healthVectors from '../test-vectors/health.json' with { type: 'json' }
import { codeOf } from '../test/fixtures.ts'
import {
  CAPABILITY,
  canRead,
  decodeHealth,
  encodeHealth,
  HEALTH_TAGS,
  MAX_ANNOUNCED_AUTHORS,
  MAX_CLIENT_ID,
  MAX_HEALTH_RECORDS,
  type Health,
} from './index.ts'

const fromHex = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16))
const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')

interface StoredHealth {
  capabilities?: { envelopeVersion: number; features: number }
  hello?: boolean
  stateVector?: string
  authors?: number[]
  unknown?: Record<string, string>
}
const healthOf = (v: StoredHealth): Health => ({
  ...(v.capabilities === undefined ? {} : { capabilities: v.capabilities }),
  ...(v.hello === undefined ? {} : { hello: v.hello }),
  ...(v.stateVector === undefined ? {} : { stateVector: fromHex(v.stateVector) }),
  ...(v.authors === undefined ? {} : { authors: v.authors }),
  ...(v.unknown === undefined
    ? {}
    : { unknown: new Map(Object.entries(v.unknown).map(([k, x]) => [Number(k), fromHex(x)])) }),
})

describe('health payload golden vectors', () => {
  it.each(healthVectors.vectors)('$name: decodes to the stored value and encodes to the stored hex', (vector) => {
    const value = healthOf(vector.value as StoredHealth)
    expect(decodeHealth(fromHex(vector.hex))).toEqual(value)
    expect(toHex(encodeHealth(value))).toBe(vector.hex)
  })

  it.each(healthVectors.invalid)('invalid, $name: $code', (vector) => {
    expect(codeOf(() => decodeHealth(fromHex(vector.hex)))).toBe(`ProtocolError:${vector.code}`)
  })
})

describe('health payloads', () => {
  it('an empty payload is a bare probe that announces nothing', () => {
    expect(decodeHealth(new Uint8Array(0))).toEqual({})
  })

  it('an unknown record is skipped by length, so the records after it still decode', () => {
    const payload = encodeHealth({
      unknown: new Map([
        [0x7f, Uint8Array.of(9, 9, 9)],
        [0x05, Uint8Array.of(1)],
      ]),
      capabilities: { envelopeVersion: 1, features: CAPABILITY.attachments },
    })
    const decoded = decodeHealth(payload)
    expect(decoded.capabilities).toEqual({ envelopeVersion: 1, features: CAPABILITY.attachments })
    expect([...(decoded.unknown ?? new Map<number, Uint8Array>()).keys()]).toEqual([0x05, 0x7f])
  })

  it('every cut of a valid payload is refused with a stable code, never misread', () => {
    const payload = encodeHealth({
      capabilities: { envelopeVersion: 1, features: 3 },
      hello: true,
      stateVector: Uint8Array.of(1, 2, 3, 4),
    })
    const valid: number[] = []
    for (let n = 1; n < payload.length; n++) {
      const code = codeOf(() => decodeHealth(payload.subarray(0, n)))
      if (code === 'no error') valid.push(n)
      else expect(code).toBe('ProtocolError:PROTO_HEALTH_MALFORMED')
    }
    // Only cuts at record boundaries (after the format byte, the capabilities, the hello) are payloads.
    expect(valid).toEqual([1, 5, 7])
  })

  it(`refuses more than ${MAX_HEALTH_RECORDS} records, encoding and decoding`, () => {
    const many = new Map(
      Array.from({ length: MAX_HEALTH_RECORDS + 1 }, (_, i) => [0x10 + i, new Uint8Array(0)] as [number, Uint8Array]),
    )
    expect(codeOf(() => encodeHealth({ unknown: many }))).toBe('ProtocolError:PROTO_INVALID_FIELD')
    const bytes = [1, ...[...many.keys()].flatMap((tag) => [tag, 0])]
    expect(codeOf(() => decodeHealth(Uint8Array.from(bytes)))).toBe('ProtocolError:PROTO_HEALTH_MALFORMED')
  })

  it('refuses to write a known tag as an unknown record, and bad numbers', () => {
    expect(codeOf(() => encodeHealth({ unknown: new Map([[HEALTH_TAGS.hello, new Uint8Array(0)]]) }))).toBe(
      'ProtocolError:PROTO_INVALID_FIELD',
    )
    expect(codeOf(() => encodeHealth({ capabilities: { envelopeVersion: -1, features: 0 } }))).toBe(
      'ProtocolError:PROTO_INVALID_FIELD',
    )
    expect(codeOf(() => encodeHealth({ capabilities: { envelopeVersion: 1, features: 0.5 } }))).toBe(
      'ProtocolError:PROTO_INVALID_FIELD',
    )
  })

  it('canRead needs an announcement holding every asked bit; unknown extra bits do not hurt', () => {
    expect(canRead(undefined, CAPABILITY.deflate)).toBe(false)
    expect(
      canRead({ envelopeVersion: 1, features: CAPABILITY.deflate }, CAPABILITY.deflate | CAPABILITY.attachments),
    ).toBe(false)
    expect(canRead({ envelopeVersion: 1, features: 0xff }, CAPABILITY.deflate | CAPABILITY.attachments)).toBe(true)
    expect(canRead({ envelopeVersion: 0, features: 0xff }, CAPABILITY.deflate)).toBe(false)
  })
})

describe('the authors record', () => {
  it('carries client ids in the order given, up to 2^53 − 1', () => {
    const authors = [7, 0, 0xffff_ffff, 2 ** 53 - 1, 300]
    expect(decodeHealth(encodeHealth({ authors }))).toEqual({ authors })
  })

  it('is refused when it names none, more than the bound, or an id Yjs cannot draw', () => {
    expect(() => encodeHealth({ authors: [] })).toThrow(/PROTO_INVALID_FIELD|authors must name/)
    expect(() => encodeHealth({ authors: Array.from({ length: MAX_ANNOUNCED_AUTHORS + 1 }, (_, i) => i) })).toThrow(
      /authors must name 1 … 64/,
    )
    expect(() => encodeHealth({ authors: [MAX_CLIENT_ID + 2] })).toThrow(/a client id/)
    expect(decodeHealth(encodeHealth({ authors: [2 ** 53 - 1] })).authors).toEqual([2 ** 53 - 1])
    expect(codeOf(() => decodeHealth(Uint8Array.of(1, HEALTH_TAGS.authors, 2, 1, 5, 9)))).toBe(
      'ProtocolError:PROTO_HEALTH_MALFORMED',
    )
  })
})
