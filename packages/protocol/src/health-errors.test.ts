/**
 * Every rejection of the health codec names what was wrong: the field, the tag, the counts. A
 * message reduced to "" or a field name lost keeps the right code, so only the text can tell.
 */
import { describe, expect, it } from 'vitest'
import { failure } from '../test/fixtures.ts'
import { decodeHealth, encodeHealth, HEALTH_TAGS, MAX_HEALTH_RECORDS, type Health } from './health.ts'

const notBytes = [1] as unknown as Uint8Array
const empty = new Uint8Array(0)

describe('encodeHealth refuses, naming the field', () => {
  const cases: [string, Health, string][] = [
    [
      'a negative envelope version',
      { capabilities: { envelopeVersion: -1, features: 0 } },
      'PROTO_INVALID_FIELD: envelopeVersion must be an integer in 0 … 2^53 − 1',
    ],
    [
      'fractional features',
      { capabilities: { envelopeVersion: 1, features: 1.5 } },
      'PROTO_INVALID_FIELD: features must be an integer in 0 … 2^53 − 1',
    ],
    [
      'a state vector that is not bytes',
      { stateVector: notBytes },
      'PROTO_INVALID_FIELD: stateVector must be a Uint8Array',
    ],
    [
      'a negative unknown tag',
      { unknown: new Map([[-1, empty]]) },
      'PROTO_INVALID_FIELD: record tag must be an integer in 0 … 2^53 − 1',
    ],
    [
      'a known tag among the unknown records',
      { unknown: new Map([[HEALTH_TAGS.hello, empty]]) },
      'PROTO_INVALID_FIELD: record tag 2 is a known record; use its field',
    ],
    [
      'an unknown record that is not bytes',
      { unknown: new Map([[99, notBytes]]) },
      'PROTO_INVALID_FIELD: a record value must be a Uint8Array',
    ],
    [
      `more than ${MAX_HEALTH_RECORDS} records`,
      { unknown: new Map(Array.from({ length: MAX_HEALTH_RECORDS + 1 }, (_, i) => [5 + i, empty])) },
      `PROTO_INVALID_FIELD: at most ${MAX_HEALTH_RECORDS} records`,
    ],
  ]
  it.each(cases)('%s', (_, health, want) => {
    expect(failure(() => encodeHealth(health))).toBe(want)
  })

  it(`accepts zero for both capability numbers and exactly ${MAX_HEALTH_RECORDS} records`, () => {
    const zero = encodeHealth({ capabilities: { envelopeVersion: 0, features: 0 } })
    expect(decodeHealth(zero)).toStrictEqual({ capabilities: { envelopeVersion: 0, features: 0 } })
    const full = new Map(Array.from({ length: MAX_HEALTH_RECORDS }, (_, i) => [5 + i, Uint8Array.of(i)]))
    expect(decodeHealth(encodeHealth({ unknown: full })).unknown?.size).toBe(MAX_HEALTH_RECORDS)
  })
})

describe('decodeHealth refuses, saying where', () => {
  const tooMany = [1]
  for (let i = 0; i <= MAX_HEALTH_RECORDS; i++) tooMany.push(5 + i, 0)
  const cases: [string, Uint8Array, RegExp][] = [
    ['a payload that is not bytes', notBytes, /^PROTO_INVALID_FIELD: payload must be a Uint8Array$/],
    ['another format', Uint8Array.of(2), /^PROTO_HEALTH_MALFORMED: health payload: format 2 is not 1$/],
    [
      'tags out of order',
      Uint8Array.of(1, 5, 0, 3, 0),
      /^PROTO_HEALTH_MALFORMED: health payload: record tag 3 after tag 5 \(tags must be strictly ascending\)$/,
    ],
    [
      'a record longer than what is left',
      Uint8Array.of(1, 9, 3, 1),
      /^PROTO_HEALTH_MALFORMED: health payload: record 9 of 3 bytes overruns the payload \(1 left\)$/,
    ],
    [
      'a record length beyond the payload',
      Uint8Array.of(1, 9, 5, 1),
      /^PROTO_HEALTH_MALFORMED: health payload: .*record length at offset 2 exceeds 4$/,
    ],
    [
      'a cut tag',
      Uint8Array.of(1, 0x80),
      /^PROTO_HEALTH_MALFORMED: health payload: .*truncated: record tag needs 1 byte\(s\) at offset 2, 0 left$/,
    ],
    [
      'a cut record length',
      Uint8Array.of(1, 9, 0x80),
      /^PROTO_HEALTH_MALFORMED: health payload: .*truncated: record length needs 1 byte\(s\) at offset 3, 0 left$/,
    ],
    [
      'bytes after the capabilities',
      Uint8Array.of(1, HEALTH_TAGS.capabilities, 3, 1, 0, 7),
      /^PROTO_HEALTH_MALFORMED: health payload: capabilities record has 1 byte\(s\) after its fields$/,
    ],
    [
      'capabilities without features',
      Uint8Array.of(1, HEALTH_TAGS.capabilities, 1, 1),
      /^PROTO_HEALTH_MALFORMED: health payload: capabilities record truncated: features needs 1 byte\(s\) at offset 1, 0 left$/,
    ],
    [
      'a cut envelope version',
      Uint8Array.of(1, HEALTH_TAGS.capabilities, 1, 0x80),
      /^PROTO_HEALTH_MALFORMED: health payload: capabilities record truncated: envelopeVersion needs 1 byte\(s\) at offset 1, 0 left$/,
    ],
    [
      'a hello record with content',
      Uint8Array.of(1, HEALTH_TAGS.hello, 1, 0),
      /^PROTO_HEALTH_MALFORMED: health payload: hello record must be empty$/,
    ],
    [
      `more than ${MAX_HEALTH_RECORDS} records`,
      Uint8Array.from(tooMany),
      new RegExp(`^PROTO_HEALTH_MALFORMED: health payload: more than ${MAX_HEALTH_RECORDS} records$`),
    ],
  ]
  it.each(cases)('%s', (_, payload, want) => {
    expect(failure(() => decodeHealth(payload))).toMatch(want)
  })

  it('gives no key for a record that was absent', () => {
    const decoded = decodeHealth(encodeHealth({ hello: true }))
    expect(Object.keys(decoded)).toEqual(['hello'])
  })
})
