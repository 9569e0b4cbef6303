import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { afterEach, describe, expect, test } from 'vitest'
import { createDocumentPresence, type PresencePage } from './document-presence.ts'

/** A page as the sidecar sees it: the frames it was sent (here the bare payloads). */
function page(): PresencePage & { got: Uint8Array[] } {
  const got: Uint8Array[] = []
  return { got, send: (frame) => got.push(frame) }
}

/** A person's presence, as their page's y-protocols Awareness encodes it. */
function person(name: string): Awareness {
  const a = new Awareness(new Y.Doc())
  a.setLocalStateField('user', { name })
  return a
}
const own = (a: Awareness): Uint8Array => encodeAwarenessUpdate(a, [a.clientID])

/** What a fresh peer shows after applying these payloads. */
function shown(payloads: readonly Uint8Array[]): string[] {
  const peer = new Awareness(new Y.Doc())
  for (const p of payloads) applyAwarenessUpdate(peer, p, 'test')
  const names = [...peer.getStates().entries()]
    .filter(([id]) => id !== peer.clientID)
    .map(([, s]) => (s as { user: { name: string } }).user.name)
  peer.destroy()
  return names.sort()
}

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

function setup(maxClients?: number) {
  const pages = new Set<PresencePage>()
  const group: Uint8Array[] = []
  const presence = createDocumentPresence({
    pages,
    frame: (payload) => payload,
    toGroup: (payload) => group.push(payload),
    ...(maxClients === undefined ? {} : { maxClients }),
  })
  cleanups.push(() => presence.dispose())
  return { pages, group, presence }
}

describe('a document presence mirror', () => {
  test('greets a joining page at once with every current state, of its pages and of the group', () => {
    const { presence } = setup()
    const alice = person('Alice')
    const bob = person('Bob')
    const tab = page()
    expect(presence.seen(own(alice), tab)).toBe(true)
    expect(presence.seen(own(bob))).toBe(true)
    const late = page()
    presence.greet(late)
    expect(late.got).toHaveLength(1)
    expect(shown(late.got)).toEqual(['Alice', 'Bob'])
  })

  test('greets nobody when no one is present', () => {
    const { presence } = setup()
    const late = page()
    presence.greet(late)
    expect(late.got).toEqual([])
  })

  test('a closed page leaves: its states are removed for the other pages, the group and later joiners', () => {
    const { pages, group, presence } = setup()
    const alice = person('Alice')
    const tab = page()
    const other = page()
    pages.add(other)
    presence.seen(own(alice), tab)
    presence.seen(own(person('Bob')))
    const before = [own(alice)]
    presence.leave(tab)
    expect(group).toHaveLength(1)
    expect(other.got).toEqual(group)
    // A peer that showed Alice no longer does once the removal is applied.
    expect(shown([...before, ...group])).toEqual([])
    const late = page()
    presence.greet(late)
    expect(shown(late.got)).toEqual(['Bob'])
  })

  test('a page that said goodbye itself costs no second send when its socket closes', () => {
    const { group, presence } = setup()
    const alice = person('Alice')
    const tab = page()
    presence.seen(own(alice), tab)
    removeAwarenessStates(alice, [alice.clientID], 'pagehide')
    presence.seen(own(alice), tab)
    presence.leave(tab)
    expect(group).toEqual([])
  })

  test('a malformed payload from the group is dropped, not thrown', () => {
    const { presence } = setup()
    expect(presence.seen(new Uint8Array([5, 1, 2]))).toBe(false)
    expect(presence.seen(new Uint8Array([1, 7, 1, 3, 0x7b, 0x78, 0x7d]))).toBe(false) // state "{x}" is not JSON
  })

  test('keeps at most maxClients states: an update that would go beyond is dropped from the mirror', () => {
    const { presence } = setup(2)
    presence.seen(own(person('A')))
    presence.seen(own(person('B')))
    expect(presence.seen(own(person('C')))).toBe(true)
    const late = page()
    presence.greet(late)
    expect(shown(late.got)).toEqual(['A', 'B'])
  })

  test('after dispose (the sidecar stopping) a closing page sends nothing', () => {
    const { group, presence } = setup()
    const tab = page()
    presence.seen(own(person('Alice')), tab)
    presence.dispose()
    presence.leave(tab)
    expect(group).toEqual([])
  })
})
