import { systemTimers } from '@e2e-col/sync'
import { afterAll, describe, expect, test, vi } from 'vitest'
import { applyAwarenessUpdate, Awareness, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { AwarenessChannel, PEER_EXPIRY_MS } from './awareness-channel.ts'

const REMOTE = Symbol('remote')
const IDLE = 1000
const INTERVAL = 10_000

// y-protocols' renew/expiry reads lib0's clock, which captures `Date.now` when first imported:
// the fake clock has to be in place before any import, hence hoisted.
vi.hoisted(() => {
  vi.useFakeTimers({ now: 1_000_000 })
})
afterAll(() => {
  vi.useRealTimers()
})

/** A channel with the default timing on the fake clock; `instance` (of `doc`) is handed in when given. */
function channel(doc = new Y.Doc(), instance?: Awareness): { ch: AwarenessChannel; sent: Uint8Array[] } {
  const sent: Uint8Array[] = []
  const ch = new AwarenessChannel(doc, {
    idleMs: IDLE,
    intervalMs: INTERVAL,
    timers: systemTimers,
    send: (p) => sent.push(p),
    remoteOrigin: REMOTE,
    instance,
  })
  return { ch, sent }
}

/** Alice's channel, and a peer that shows her; `last()` applies her last message at the peer. */
function aliceSeenByPeer(): { ch: AwarenessChannel; sent: Uint8Array[]; peer: Awareness; last(): void } {
  const { ch, sent } = channel()
  ch.awareness.setLocalStateField('user', { name: 'Alice' })
  const peer = new Awareness(new Y.Doc())
  applyAwarenessUpdate(peer, encodeAwarenessUpdate(ch.awareness, [ch.awareness.clientID]), REMOTE)
  return { ch, sent, peer, last: () => applyAwarenessUpdate(peer, sent.at(-1) ?? new Uint8Array(), REMOTE) }
}

describe('presence channel', () => {
  test('while typing, presence only rides behind edits: no standalone message at all', () => {
    const { ch, sent } = channel()
    // Ten seconds of typing: a cursor move per keystroke, an edit flushed every 250 ms.
    for (let t = 0; t < 40; t += 1) {
      ch.awareness.setLocalStateField('cursor', t)
      vi.advanceTimersByTime(250)
      ch.ride()
    }
    expect(sent).toHaveLength(40)
    vi.advanceTimersByTime(INTERVAL)
    expect(sent).toHaveLength(40)
  })

  test('an edit that carries nothing new sends no presence', () => {
    const { ch, sent } = channel()
    ch.ride()
    expect(sent).toHaveLength(0)
  })

  test('a change no edit carries is sent alone after the idle wait', () => {
    const { ch, sent } = channel()
    ch.awareness.setLocalStateField('user', { name: 'Bob' })
    vi.advanceTimersByTime(IDLE - 1)
    expect(sent).toHaveLength(0)
    vi.advanceTimersByTime(1)
    expect(sent).toHaveLength(1)
  })

  test('standalone messages are at least the interval apart, the latest state winning', () => {
    const { ch, sent } = channel()
    ch.awareness.setLocalStateField('cursor', 1)
    vi.advanceTimersByTime(IDLE)
    expect(sent).toHaveLength(1)
    for (let i = 2; i <= 9; i += 1) {
      ch.awareness.setLocalStateField('cursor', i)
      vi.advanceTimersByTime(IDLE)
    }
    expect(sent).toHaveLength(1)
    vi.advanceTimersByTime(INTERVAL)
    expect(sent).toHaveLength(2)
    const receiver = new Awareness(new Y.Doc())
    applyAwarenessUpdate(receiver, sent[1]!, REMOTE)
    expect(receiver.getStates().get(ch.awareness.clientID)).toEqual({ cursor: 9 })
    receiver.destroy()
  })

  test('an idle page renews its presence with one standalone message per 15 s', () => {
    const { ch, sent } = channel()
    ch.awareness.setLocalStateField('user', { name: 'Bob' })
    vi.advanceTimersByTime(IDLE)
    const start = sent.length
    vi.advanceTimersByTime(60_000)
    // y-protocols renews after half its 30 s timeout, checked every 3 s: 15 s < renew ≤ 18 s.
    expect(sent.length - start).toBeGreaterThanOrEqual(3)
    expect(sent.length - start).toBeLessThanOrEqual(4)
    ch.dispose()
  })

  test(`a peer not heard from for ${PEER_EXPIRY_MS} ms is removed`, () => {
    const { ch } = channel()
    const peer = new Awareness(new Y.Doc())
    peer.setLocalStateField('user', { name: 'Alice' })
    ch.apply(encodeAwarenessUpdate(peer, [peer.clientID]))
    peer.destroy()
    expect(ch.awareness.getStates().has(peer.clientID)).toBe(true)
    vi.advanceTimersByTime(PEER_EXPIRY_MS - 3000)
    expect(ch.awareness.getStates().has(peer.clientID)).toBe(true)
    vi.advanceTimersByTime(6000)
    expect(ch.awareness.getStates().has(peer.clientID)).toBe(false)
  })

  test('a peer update does not make us send', () => {
    const { ch, sent } = channel()
    const peer = new Awareness(new Y.Doc())
    peer.setLocalStateField('user', { name: 'Alice' })
    ch.apply(encodeAwarenessUpdate(peer, [peer.clientID]))
    peer.destroy()
    vi.advanceTimersByTime(IDLE)
    ch.ride()
    expect(sent).toHaveLength(0)
  })

  test('an Awareness handed in is the one carried, and leaving removes us at peers', () => {
    const doc = new Y.Doc()
    const mine = new Awareness(doc)
    const { ch, sent } = channel(doc, mine)
    expect(ch.awareness).toBe(mine)
    mine.setLocalStateField('user', { name: 'Bob' })
    const receiver = new Awareness(new Y.Doc())
    applyAwarenessUpdate(receiver, encodeAwarenessUpdate(mine, [mine.clientID]), REMOTE)
    expect(receiver.getStates().has(mine.clientID)).toBe(true)
    ch.dispose()
    expect(sent).toHaveLength(1)
    applyAwarenessUpdate(receiver, sent[0]!, REMOTE)
    expect(receiver.getStates().has(mine.clientID)).toBe(false)
    receiver.destroy()
    mine.destroy()
  })

  test('announce renews the clock, so a peer that saw our removal at the old clock takes the state again', () => {
    const { ch, peer, last } = aliceSeenByPeer()
    ch.farewell()
    last()
    expect(peer.getStates().has(ch.awareness.clientID)).toBe(false)
    // The local state is untouched by a farewell (y-websocket's disconnect()).
    expect(ch.awareness.getLocalState()).toEqual({ user: { name: 'Alice' } })
    ch.announce()
    last()
    expect(peer.getStates().get(ch.awareness.clientID)).toEqual({ user: { name: 'Alice' } })
    peer.destroy()
  })

  test('leaving the page removes the local state and sends the removal at once; coming back restores it', () => {
    const { ch, sent, peer, last } = aliceSeenByPeer()
    const before = sent.length
    ch.leave()
    expect(sent).toHaveLength(before + 1)
    expect(ch.awareness.getLocalState()).toBeNull()
    last()
    expect(peer.getStates().has(ch.awareness.clientID)).toBe(false)
    ch.leave() // a second pagehide has nothing left to remove
    expect(sent).toHaveLength(before + 1)
    ch.rejoin()
    expect(ch.awareness.getLocalState()).toEqual({ user: { name: 'Alice' } })
    last()
    expect(peer.getStates().get(ch.awareness.clientID)).toEqual({ user: { name: 'Alice' } })
    peer.destroy()
  })

  test('forgetting peers clears their states and clocks, so a greeting at the same clocks applies again', () => {
    const { ch } = channel()
    const bob = new Awareness(new Y.Doc())
    bob.setLocalStateField('user', { name: 'Bob' })
    const bobs = encodeAwarenessUpdate(bob, [bob.clientID])
    ch.apply(bobs)
    ch.forgetPeers()
    expect([...ch.awareness.getStates().keys()]).toEqual([ch.awareness.clientID])
    ch.apply(bobs)
    expect(ch.awareness.getStates().get(bob.clientID)).toEqual({ user: { name: 'Bob' } })
    bob.destroy()
  })
  test('removing a peer locally is not news for others; removing our own state is, after the idle wait', () => {
    const { ch, sent } = channel()
    const bob = new Awareness(new Y.Doc())
    bob.setLocalStateField('user', { name: 'Bob' })
    ch.apply(encodeAwarenessUpdate(bob, [bob.clientID]))
    removeAwarenessStates(ch.awareness, [bob.clientID], 'local')
    vi.advanceTimersByTime(INTERVAL)
    expect(sent).toHaveLength(0)
    ch.awareness.setLocalState(null)
    vi.advanceTimersByTime(IDLE)
    expect(sent).toHaveLength(1)
    bob.destroy()
  })

  test('a farewell cancels the standalone message a change was waiting for', () => {
    const { ch, sent } = channel()
    ch.awareness.setLocalStateField('cursor', 1)
    ch.farewell()
    expect(sent).toHaveLength(1)
    vi.advanceTimersByTime(INTERVAL)
    expect(sent).toHaveLength(1)
    ch.ride() // nothing left to carry
    expect(sent).toHaveLength(1)
  })

  test('rejoin sends nothing without a leave before it, or when the state was set again meanwhile', () => {
    const { ch, sent } = channel()
    ch.awareness.setLocalStateField('user', 'a')
    ch.ride()
    ch.rejoin()
    expect(sent).toHaveLength(1)
    ch.leave()
    ch.awareness.setLocalState({ user: 'b' })
    ch.ride()
    const count = sent.length
    ch.rejoin()
    expect(sent).toHaveLength(count)
    expect(ch.awareness.getLocalState()).toEqual({ user: 'b' })
  })

  test('forgetting peers keeps our own clock', () => {
    const { ch } = channel()
    ch.awareness.setLocalStateField('user', 'a')
    const clock = ch.awareness.meta.get(ch.awareness.clientID)?.clock
    ch.forgetPeers()
    expect(ch.awareness.meta.get(ch.awareness.clientID)?.clock).toBe(clock)
    expect(ch.awareness.getLocalState()).toEqual({ user: 'a' })
  })

  test('after dispose, local changes are not sent; an Awareness it made itself is destroyed, one handed in is not', () => {
    const { ch, sent } = channel()
    let destroyed = false
    ch.awareness.on('destroy', () => (destroyed = true))
    ch.dispose()
    expect(destroyed).toBe(true)
    const doc = new Y.Doc()
    const mine = new Awareness(doc)
    let mineDestroyed = false
    mine.on('destroy', () => (mineDestroyed = true))
    const { ch: other, sent: borrowed } = channel(doc, mine)
    other.dispose()
    expect(mineDestroyed).toBe(false)
    mine.setLocalStateField('user', 'late')
    vi.advanceTimersByTime(INTERVAL)
    other.ride()
    expect(borrowed).toHaveLength(1) // the removal only
    expect(sent).toHaveLength(1)
    mine.destroy()
  })
  test('our own entry coming back from the sidecar (a remote update) is not sent again', () => {
    const { ch, sent } = channel()
    ch.awareness.setLocalStateField('user', 'a')
    ch.ride()
    const echoDoc = new Y.Doc()
    echoDoc.clientID = ch.awareness.clientID
    const echo = new Awareness(echoDoc)
    echo.setLocalState({ user: 'a' })
    echo.setLocalState({ user: 'a', again: true }) // a newer clock than ours
    ch.apply(encodeAwarenessUpdate(echo, [echo.clientID]))
    vi.advanceTimersByTime(INTERVAL)
    expect(sent).toHaveLength(1)
    echo.destroy()
  })

  test('rejoin without a leave sends nothing, also when the local state is empty', () => {
    const { ch, sent } = channel()
    ch.awareness.setLocalState(null)
    ch.ride()
    const count = sent.length
    ch.rejoin()
    expect(sent).toHaveLength(count)
  })

  test('an edit carrying the change ends its wait: a later change waits its own idle time', () => {
    const { ch, sent } = channel()
    ch.awareness.setLocalStateField('cursor', 1)
    vi.advanceTimersByTime(100)
    ch.ride() // carried: the standalone wait is over
    expect(sent).toHaveLength(1)
    vi.advanceTimersByTime(400)
    ch.awareness.setLocalStateField('cursor', 2) // at 500: due at 1500, not at the first change's 1000
    vi.advanceTimersByTime(999)
    expect(sent).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(sent).toHaveLength(2)
  })
})
