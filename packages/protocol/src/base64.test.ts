import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { codeOf } from '../test/fixtures.ts'
import * as fast from './base64.ts'

/** The same module loaded on a platform without the Encoding API, so its portable paths run. */
async function loadPortable(): Promise<typeof fast> {
  vi.stubGlobal('TextEncoder', undefined)
  vi.stubGlobal('TextDecoder', undefined)
  vi.resetModules()
  try {
    return await import('./base64.ts')
  } finally {
    vi.unstubAllGlobals()
  }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

const alphabetish = fc.string({ unit: fc.constantFrom(...'AQgw+/=\n é\u2028-'.split('')), maxLength: 24 })

describe.each([
  ['with the Encoding API', async () => fast],
  ['portable', loadPortable],
])('base64 %s', (_name, load) => {
  it('encodes exactly as Node does, for whole arrays and sub-ranges', async () => {
    const b64 = await load()
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(), (bytes, cut) => {
        const start = bytes.length === 0 ? 0 : cut % bytes.length
        expect(b64.encodeBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'))
        expect(b64.encodeBase64(bytes, start)).toBe(Buffer.from(bytes.subarray(start)).toString('base64'))
      }),
    )
  })

  it('decodes canonical text back to the bytes, also at an offset', async () => {
    const b64 = await load()
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = Buffer.from(bytes).toString('base64')
        expect(b64.decodeBase64(text)).toEqual(bytes)
        expect(b64.decodeBase64(`xyz${text}`, 3)).toEqual(bytes)
      }),
    )
  })

  it('gives the same verdict and code as the other path for arbitrary text', async () => {
    const b64 = await load()
    fc.assert(
      fc.property(alphabetish, (text) => {
        expect(codeOf(() => b64.decodeBase64(text))).toBe(codeOf(() => fast.decodeBase64(text)))
      }),
    )
  })

  it('names whitespace and foreign characters precisely', async () => {
    const b64 = await load()
    expect(codeOf(() => b64.decodeBase64('AAAA\u2028AAA'))).toBe('ProtocolError:PROTO_BODY_WHITESPACE')
    expect(codeOf(() => b64.decodeBase64('AAAé'))).toBe('ProtocolError:PROTO_BODY_NOT_CANONICAL')
    expect(codeOf(() => b64.decodeBase64('AA=A'))).toBe('ProtocolError:PROTO_BODY_NOT_CANONICAL')
    expect(codeOf(() => b64.decodeBase64('AAB='))).toBe('ProtocolError:PROTO_BODY_NOT_CANONICAL')
  })
})

describe('base64 sizes', () => {
  it('base64Capacity is the inverse bound of base64Length', () => {
    for (let chars = 0; chars < 50; chars++) {
      const cap = fast.base64Capacity(chars)
      expect(fast.base64Length(cap)).toBeLessThanOrEqual(chars)
      expect(fast.base64Length(cap + 1)).toBeGreaterThan(chars)
    }
  })
})
