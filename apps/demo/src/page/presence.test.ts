import { describe, expect, test } from 'vitest'
import * as Y from 'yjs'
import { colourFor, EditTimes, presenceText, TYPING_FOR_MS } from './presence.ts'

describe('presence line', () => {
  test('names who is here and who is typing', () => {
    expect(presenceText([])).toBe('nobody else is here')
    expect(presenceText([{ name: 'Bob', typing: true }])).toBe('Bob is here · typing')
    expect(presenceText([{ name: 'Bob', typing: false }])).toBe('Bob is here')
    expect(
      presenceText([
        { name: 'Bob', typing: false },
        { name: 'Carol', typing: true },
      ]),
    ).toBe('Bob and Carol are here · Carol typing')
  })

  test('a person keeps one colour', () => {
    expect(colourFor('Bob')).toBe(colourFor('Bob'))
    expect(colourFor('Alice')).not.toBe(colourFor('Bob'))
  })

  test('a peer counts as typing for a while after an update carrying their edit, then not', () => {
    const doc = new Y.Doc()
    const updates: Uint8Array[] = []
    doc.on('update', (u: Uint8Array) => updates.push(u))
    doc.getText('t').insert(0, 'hi')
    const times = new EditTimes()
    times.record(updates[0]!, 1000)
    expect(times.typing(doc.clientID, 1000 + TYPING_FOR_MS - 1)).toBe(true)
    expect(times.typing(doc.clientID, 1000 + TYPING_FOR_MS)).toBe(false)
    expect(times.typing(doc.clientID + 1, 1000)).toBe(false)
  })
})
