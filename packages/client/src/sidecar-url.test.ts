import { describe, expect, test } from 'vitest'
import { documentUrl } from './sidecar-url.ts'

const DOC = '11111111-1111-4111-8111-111111111111'

describe('documentUrl', () => {
  test('maps http(s) to ws(s), keeps ws(s), keeps a path prefix without its trailing slashes', () => {
    expect(documentUrl('http://127.0.0.1:7601', DOC)).toBe(`ws://127.0.0.1:7601/v1/docs/${DOC}`)
    expect(documentUrl('https://host.example/', DOC)).toBe(`wss://host.example/v1/docs/${DOC}`)
    expect(documentUrl('ws://host.example/sidecar//', DOC)).toBe(`ws://host.example/sidecar/v1/docs/${DOC}`)
    expect(documentUrl('wss://host.example:9/a/b', DOC)).toBe(`wss://host.example:9/a/b/v1/docs/${DOC}`)
  })

  test('refuses what is not a URL, or not http(s)/ws(s), with CLIENT_BAD_SIDECAR_URL saying why', () => {
    expect(() => documentUrl('ftp://host.example', DOC)).toThrow(
      expect.objectContaining({
        name: 'ClientError',
        code: 'CLIENT_BAD_SIDECAR_URL',
        message: 'sidecar URL must be http(s) or ws(s), got ftp:',
      }),
    )
    let refused: unknown
    try {
      documentUrl('no url', DOC)
    } catch (error) {
      refused = error
    }
    expect(refused).toMatchObject({ code: 'CLIENT_BAD_SIDECAR_URL', message: 'sidecar URL is not a valid URL' })
    expect((refused as Error).cause).toBeInstanceOf(TypeError)
  })
})
