import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { revertChange, type LoggedChange } from './revert.ts'

/** Two people editing one text, each change logged with its author, as the sidecar logs them. */
function twoWriters() {
  const alice = new Y.Doc()
  const bob = new Y.Doc()
  const log: LoggedChange[] = []
  const share = (from: Y.Doc, to: Y.Doc, author: string) =>
    from.on('update', (data: Uint8Array, origin: unknown) => {
      if (origin === 'remote') return
      log.push({ author, data })
      Y.applyUpdate(to, data, 'remote')
    })
  share(alice, bob, 'alice')
  share(bob, alice, 'bob')
  return { alice, bob, log }
}

describe("revert one member's changes since a moment", () => {
  it("undoes Bob's interleaved edits and deletions and keeps Alice's", () => {
    const { alice, bob, log } = twoWriters()
    alice.getText('t').insert(0, 'Day 1: Lisbon. Day 2: Porto.')
    const base = [Y.encodeStateAsUpdate(alice)]
    const since = log.length
    bob.getText('t').insert(0, 'SPAM ')
    alice.getText('t').insert(alice.getText('t').length, ' Day 3: Braga.')
    bob.getText('t').delete(5, 6) // "Day 1:" gone
    alice.getText('t').insert(0, 'Plan: ')
    bob.getText('t').insert(bob.getText('t').length, ' MORE SPAM')

    const change = revertChange(base, log.slice(since), 'bob', alice)
    if (change === undefined) throw new Error('no change undoes what Bob did')
    Y.applyUpdate(alice, change)
    expect(alice.getText('t').toString()).toBe('Plan: Day 1: Lisbon. Day 2: Porto. Day 3: Braga.')
  })

  it('a member who changed nothing since then gives no change', () => {
    const { alice, log } = twoWriters()
    alice.getText('t').insert(0, 'only Alice')
    expect(revertChange([], log, 'bob', alice)).toBeUndefined()
  })

  it('a hostile delete-all in one crafted update is undone, and later honest edits stay', () => {
    const { alice, bob, log } = twoWriters()
    const frag = alice.getXmlFragment('prosemirror')
    const p = new Y.XmlElement('paragraph')
    p.insert(0, [new Y.XmlText('the plan')])
    frag.insert(0, [p])
    const base = [Y.encodeStateAsUpdate(alice)]
    const since = log.length
    bob.getXmlFragment('prosemirror').delete(0, 1)
    const q = new Y.XmlElement('paragraph')
    q.insert(0, [new Y.XmlText('after')])
    alice.getXmlFragment('prosemirror').insert(0, [q])
    Y.applyUpdate(alice, revertChange(base, log.slice(since), 'bob', alice) as Uint8Array)
    expect(frag.toString()).toBe('<paragraph>after</paragraph><paragraph>the plan</paragraph>')
  })
})
