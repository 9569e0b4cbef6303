/**
 * Errors that name the exact fault: a varint of more groups than any safe integer needs, a health
 * record length past the payload, and a bad character inside base64's padded last quantum.
 */
import { describe, expect, it } from 'vitest'
import { codeOf, failure, sampleEnvelope } from '../test/fixtures.ts'
import { decodeBase64 } from './base64.ts'
import { unpackBatch } from './batch.ts'
import { decodeHealth } from './health.ts'

describe('varint of too many groups', () => {
  it('is an overflow at its eighth continuation byte, even with nothing after it', () => {
    const batch = sampleEnvelope({ kind: 'batch', payload: new Uint8Array(8).fill(0xff) })
    expect(failure(() => unpackBatch(batch))).toMatch(/^PROTO_LENGTH_OVERFLOW: batch: count at offset 0 exceeds 1024$/)
  })

  it('is a malformed health payload when it is a record tag', () => {
    const payload = Uint8Array.from([1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
    expect(codeOf(() => decodeHealth(payload))).toBe('ProtocolError:PROTO_HEALTH_MALFORMED')
  })
})

describe('capabilities fields of too many groups', () => {
  const groups = Array.from({ length: 8 }, () => 0xff)
  it('is a malformed health payload for envelopeVersion and for features', () => {
    const version = Uint8Array.from([1, 0x01, 8, ...groups])
    const features = Uint8Array.from([1, 0x01, 9, 0x01, ...groups])
    expect(codeOf(() => decodeHealth(version))).toBe('ProtocolError:PROTO_HEALTH_MALFORMED')
    expect(codeOf(() => decodeHealth(features))).toBe('ProtocolError:PROTO_HEALTH_MALFORMED')
  })
})

describe('health record length past the whole payload', () => {
  it('is a malformed health payload naming the record length', () => {
    expect(failure(() => decodeHealth(Uint8Array.from([1, 5, 100])))).toMatch(
      /^PROTO_HEALTH_MALFORMED: health payload: health payload: record length at offset 2 exceeds 3$/,
    )
  })
})

describe('base64 padded last quantum', () => {
  it('names whitespace inside it', () => {
    expect(codeOf(() => decodeBase64('AAAAAB ='))).toBe('ProtocolError:PROTO_BODY_WHITESPACE')
  })

  it('names a non-base64 character inside it by position', () => {
    expect(failure(() => decodeBase64('AAAAAA$='))).toBe(
      'PROTO_BODY_NOT_CANONICAL: body has a non-base64 character at 6',
    )
  })
})
