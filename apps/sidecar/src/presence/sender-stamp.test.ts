import { describe, expect, it } from 'vitest'
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { stampSender } from './sender-stamp.ts'

const BOB = { number: '+15555550102', shown: 'Bob (…0102)' }

function statesOf(payload: Uint8Array): Map<number, unknown> {
  const seen = new Awareness(new Y.Doc())
  applyAwarenessUpdate(seen, payload, 'test')
  return seen.getStates()
}

describe('presence stamped with its Signal sender', () => {
  it("replaces the name a page picked with the sender's: a forged `signal` field is overwritten", () => {
    const page = new Awareness(new Y.Doc())
    page.setLocalState({ user: { name: 'Alice' }, signal: { number: '+15555550101', shown: 'Alice' } })
    const stamped = stampSender(encodeAwarenessUpdate(page, [page.clientID]), BOB)
    // An empty payload holds no state: the comparison below fails unless the stamp made one.
    expect(statesOf(stamped ?? new Uint8Array([0])).get(page.clientID)).toEqual({
      user: { name: 'Bob (…0102)', pickedName: 'Alice' },
      signal: BOB,
    })
  })

  it('leaves a removal a removal, and refuses what is not an awareness update', () => {
    const page = new Awareness(new Y.Doc())
    page.setLocalState({ user: { name: 'Bob' } })
    removeAwarenessStates(page, [page.clientID], 'gone')
    const removal = encodeAwarenessUpdate(page, [page.clientID])
    expect(stampSender(removal, BOB)).toEqual(removal)
    expect(stampSender(new Uint8Array([5, 1]), BOB)).toBeUndefined()
  })
})
