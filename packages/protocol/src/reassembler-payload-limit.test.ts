/**
 * The reassembler decodes the frame it rebuilt under the caller's `maxPayloadBytes`, not the 16 MiB
 * default: the header allowance lets a frame through reassembly whose payload is still too long.
 */
import { describe, expect, it } from 'vitest'
import { patternBytes, sampleEnvelope } from '../test/fixtures.ts'
import { chunkFrame } from './chunking.ts'
import { decodeEnvelope, encodeEnvelope } from './envelope.ts'
import { createReassembler, type PushResult } from './reassembler.ts'

const options = { maxPartialMessages: 4, maxPartialBytes: 1 << 16, ttlMs: 60_000, maxPayloadBytes: 100 }

function reassemble(payloadLength: number): PushResult | undefined {
  const frame = encodeEnvelope(sampleEnvelope({ payload: patternBytes(payloadLength) }))
  const chunks = chunkFrame(frame, { maxBodyBytes: 120 })
  expect(chunks.length).toBeGreaterThan(1)
  const r = createReassembler(options)
  let result: PushResult | undefined
  for (const c of chunks) result = r.push(decodeEnvelope(c), 0)
  return result
}

describe('reassembler payload limit', () => {
  it('delivers a reassembled payload of exactly maxPayloadBytes', () => {
    const result = reassemble(100)
    expect(result?.status).toBe('complete')
  })

  it('rejects a reassembled payload one byte over maxPayloadBytes, naming the cause', () => {
    const result = reassemble(101)
    expect(result?.status).toBe('rejected')
    const error = result?.status === 'rejected' ? result.error : undefined
    expect(error?.code).toBe('PROTO_CHUNK_INTEGRITY')
    expect(error?.message).toContain('not a valid envelope')
    expect((error?.cause as { code?: string } | undefined)?.code).toBe('PROTO_PAYLOAD_TOO_LARGE')
  })
})
