import { repeatedSections } from '@e2e-col/sync/testing'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { isExactUpdate } from './strict-yjs.ts'

/** One client's typing, an update per part. */
function typed(client: number, parts: readonly string[]): Uint8Array[] {
  const doc = new Y.Doc()
  doc.clientID = client
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  for (const part of parts) doc.getText('t').insert(doc.getText('t').length, part)
  return updates
}

describe('isExactUpdate', () => {
  it('takes what Yjs writes: single updates, merges with gaps, a replica with pending structs', () => {
    const [a, , c] = typed(1, ['one ', 'two ', 'three']) as [Uint8Array, Uint8Array, Uint8Array]
    const [d] = typed(2, ['other']) as [Uint8Array]
    const pending = new Y.Doc()
    Y.applyUpdate(pending, c) // waits for a and b
    Y.applyUpdate(pending, d)
    for (const u of [a, Y.mergeUpdates([a, c, d]), Y.mergeUpdates([c, a]), Y.encodeStateAsUpdate(pending)])
      expect(isExactUpdate(u)).toBe(true)
  })

  it('refuses trailing bytes, a cut update, and one that lists a client twice', () => {
    const [a, b] = typed(1, ['hello', 'world']) as [Uint8Array, Uint8Array]
    expect(isExactUpdate(Uint8Array.from([...a, 0]))).toBe(false)
    expect(isExactUpdate(a.subarray(0, a.length - 2))).toBe(false)
    expect(isExactUpdate(repeatedSections(b, a))).toBe(false)
  })
})
