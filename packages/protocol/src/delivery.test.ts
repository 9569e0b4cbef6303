import { describe, expect, it } from 'vitest'
import { decodeDeliveryNote, encodeDeliveryNote, MAX_REASON_CHARS, MAX_SENT_IDS } from './delivery.ts'

const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v))
const ID = 'ab'.repeat(16)

describe('delivery notes', () => {
  it('round-trip, with and without a reason', () => {
    const note = { signal: 'unreachable', since: 1_764_581_000_000, unsent: 3, sent: [ID] } as const
    expect(decodeDeliveryNote(encodeDeliveryNote(note))).toEqual(note)
    expect(
      decodeDeliveryNote(encodeDeliveryNote({ ...note, signal: 'refused', reason: 'untrusted safety number' }))?.reason,
    ).toBe('untrusted safety number')
  })

  it('carry the role when the sidecar says it, and read an unknown role as none', () => {
    const note = { signal: 'reachable', since: null, unsent: 0, sent: [] } as const
    expect(decodeDeliveryNote(encodeDeliveryNote({ ...note, role: 'viewer' }))?.role).toBe('viewer')
    expect(decodeDeliveryNote(encodeDeliveryNote({ ...note, role: 'editor' }))?.role).toBe('editor')
    expect(decodeDeliveryNote(encodeDeliveryNote({ ...note, role: 'commenter' }))?.role).toBe('commenter')
    expect(decodeDeliveryNote(encodeDeliveryNote(note))).not.toHaveProperty('role')
    const later = decodeDeliveryNote(enc({ ...note, role: 'owner' }))
    expect(later).toEqual(note)
  })

  it("carry the account's author tag, and read anything that is not a tag as none", () => {
    const note = { signal: 'reachable', since: null, unsent: 0, sent: [] } as const
    expect(decodeDeliveryNote(encodeDeliveryNote({ ...note, author: 4242 }))?.author).toBe(4242)
    expect(decodeDeliveryNote(encodeDeliveryNote(note))).not.toHaveProperty('author')
    for (const junk of [3, 2 ** 24, '4242', 1.5, null])
      expect(decodeDeliveryNote(enc({ ...note, author: junk }))).toEqual(note)
  })

  it('cap the reason and the id list when encoding', () => {
    const long = decodeDeliveryNote(
      encodeDeliveryNote({ signal: 'refused', since: 1, unsent: 0, sent: [], reason: 'x'.repeat(5000) }),
    )
    expect(long?.reason).toHaveLength(MAX_REASON_CHARS)
    const many = encodeDeliveryNote({
      signal: 'reachable',
      since: null,
      unsent: 0,
      sent: Array.from({ length: MAX_SENT_IDS + 5 }, () => ID),
    })
    expect(decodeDeliveryNote(many)?.sent).toHaveLength(MAX_SENT_IDS)
  })

  it.each([
    ['not JSON', new Uint8Array([0xff, 0x00])],
    ['an unknown state', enc({ signal: 'asleep', since: null, unsent: 0, sent: [] })],
    ['a negative count', enc({ signal: 'reachable', since: null, unsent: -1, sent: [] })],
    ['a fractional time', enc({ signal: 'reachable', since: 1.5, unsent: 0, sent: [] })],
    ['an id that is not a message id', enc({ signal: 'reachable', since: null, unsent: 0, sent: ['nope'] })],
    [
      'too many ids',
      enc({ signal: 'reachable', since: null, unsent: 0, sent: Array.from({ length: MAX_SENT_IDS + 1 }, () => ID) }),
    ],
    ['a reason that is not text', enc({ signal: 'refused', since: 1, unsent: 0, sent: [], reason: 4 })],
  ])('refuse %s', (_name, payload) => {
    expect(decodeDeliveryNote(payload)).toBeUndefined()
  })
})
