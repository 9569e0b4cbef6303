import { describe, expect, it } from 'vitest'
import { codeOf, sampleEnvelope } from '../test/fixtures.ts'
import { bodyLengthFor } from './body.ts'
import { chunkFrame, decodeChunk } from './chunking.ts'
import { encodeEnvelope } from './envelope.ts'

describe('chunking at its edges', () => {
  const frame = encodeEnvelope(sampleEnvelope({ payload: new Uint8Array(500).fill(3) }))

  it('sends a frame whose body is exactly the boundary whole, and chunks it one byte below', () => {
    const exact = bodyLengthFor(frame.length)
    expect(chunkFrame(frame, { maxBodyBytes: exact })).toEqual([frame])
    expect(chunkFrame(frame, { maxBodyBytes: exact - 1 }).length).toBeGreaterThan(1)
  })

  it('a boundary of 1 is too small, not invalid', () => {
    expect(codeOf(() => chunkFrame(frame, { maxBodyBytes: 1 }))).toBe('ProtocolError:PROTO_BOUNDARY_TOO_SMALL')
  })

  it('decodeChunk accepts data as long as the total length', () => {
    const payload = new Uint8Array(16 + 10)
    const view = new DataView(payload.buffer)
    view.setUint32(4, 2)
    view.setUint32(8, 10)
    expect(decodeChunk(sampleEnvelope({ kind: 'chunk', payload })).data.length).toBe(10)
  })
})
