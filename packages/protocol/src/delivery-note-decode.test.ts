/** decodeDeliveryNote takes only a note it fully understands; anything else is `undefined`. */
import { describe, expect, it } from 'vitest'
import { decodeDeliveryNote, encodeDeliveryNote, MAX_REASON_CHARS } from './delivery.ts'

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value))
const valid = { signal: 'reachable', since: 5, unsent: 0, sent: [] as string[] }

describe('decodeDeliveryNote', () => {
  it('decodes a valid note, with since null or zero and unsent zero', () => {
    expect(decodeDeliveryNote(json(valid))).toStrictEqual(valid)
    expect(decodeDeliveryNote(json({ ...valid, since: null }))).toStrictEqual({ ...valid, since: null })
    expect(decodeDeliveryNote(json({ ...valid, since: 0 }))).toStrictEqual({ ...valid, since: 0 })
  })

  const rejected: [string, Uint8Array][] = [
    // Decoded leniently, the broken byte would become U+FFFD in an otherwise valid note.
    [
      'a note whose reason is not UTF-8',
      Uint8Array.from([...json({ ...valid, reason: '' }).subarray(0, -2), 0xff, 0x22, 0x7d]),
    ],
    ['JSON that is a number', json(5)],
    ['JSON null', json(null)],
    ['JSON that is a string', json('reachable')],
    ['an unknown signal state', json({ ...valid, signal: 'sunny' })],
    ['a signal that is not a string', json({ ...valid, signal: 1 })],
    ['a negative since', json({ ...valid, since: -1 })],
    ['a fractional since', json({ ...valid, since: 1.5 })],
    ['a since that is a string', json({ ...valid, since: '5' })],
    ['a negative unsent', json({ ...valid, unsent: -1 })],
    ['a fractional unsent', json({ ...valid, unsent: 0.5 })],
    ['an unsent that is a string', json({ ...valid, unsent: '0' })],
    ['a sent list with a bad id', json({ ...valid, sent: ['nope'] })],
    ['a reason that is not a string', json({ ...valid, reason: 7 })],
  ]
  it.each(rejected)('refuses %s', (_, payload) => {
    expect(decodeDeliveryNote(payload)).toBeUndefined()
  })

  it('keeps at most MAX_REASON_CHARS of a reason, encoding and decoding', () => {
    const long = 'r'.repeat(MAX_REASON_CHARS + 50)
    const encoded = encodeDeliveryNote({ ...valid, signal: 'refused', reason: long })
    expect(JSON.parse(new TextDecoder().decode(encoded)).reason).toBe('r'.repeat(MAX_REASON_CHARS))
    expect(decodeDeliveryNote(json({ ...valid, reason: long }))?.reason).toBe('r'.repeat(MAX_REASON_CHARS))
  })
})
