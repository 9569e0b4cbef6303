/**
 * The provider scenarios, one list for both providers (as automerge-repo's adapter tests): each
 * runs against y-websocket with `@y/websocket-server` and against E2eColProvider with sidecars on
 * the toy daemon, with the same assertions. Where e2e-col must differ, the scenario says so in
 * `differs` (the test's title carries it) and branches on the target's kind. docs/provider.md's
 * table lists these names.
 */
import { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { expect } from 'vitest'
import type { CommonOptions, ConformingProvider, Opened, ProviderTarget } from './provider-target.ts'
import { pause, until } from './until.ts'

export interface Scenario {
  readonly name: string
  /** Why e2e-col must differ here; absent when both pass the same assertions. */
  readonly differs?: string
  run(t: ProviderTarget): Promise<void>
}

let runs = 0
/** A Y type of the shared room no other scenario (or run) touches. */
const fresh = (name: string): string => `${name}-${Date.now()}-${runs++}`

/** The names the provider's awareness shows, other than its own. */
function peers(provider: ConformingProvider): string[] {
  const own = provider.awareness.clientID
  return [...provider.awareness.getStates().entries()]
    .filter(([id]) => id !== own)
    .map(([, state]) => (state as { user?: { name?: string } }).user?.name ?? '?')
}

/** Every peer's presence state, other than its own. */
function peerStates(provider: ConformingProvider): Record<string, unknown>[] {
  const own = provider.awareness.clientID
  return [...provider.awareness.getStates().entries()]
    .filter(([id]) => id !== own)
    .map(([, state]) => state as Record<string, unknown>)
}

/** `field` of each peer's presence state (a field both providers carry as the page set it). */
const peerNotes = (provider: ConformingProvider): unknown[] => peerStates(provider).map((s) => s['note'])

async function synced(t: ProviderTarget, who: 'alice' | 'bob', doc = new Y.Doc(), o?: CommonOptions): Promise<Opened> {
  const opened = t.open(who, doc, o)
  await until(`${who} synced`, () => opened.provider.synced)
  return opened
}

/** Alice and Bob synced, `shown` named in its presence (`Alice`, `Bob`) and seen by the other. */
async function pairShowing(t: ProviderTarget, shown: 'alice' | 'bob'): Promise<{ a: Opened; b: Opened }> {
  const a = await synced(t, 'alice')
  const b = await synced(t, 'bob')
  const [showing, seeing] = shown === 'alice' ? [a, b] : [b, a]
  const name = shown === 'alice' ? 'Alice' : 'Bob'
  showing.provider.awareness.setLocalStateField('user', { name })
  await until(`${name} seen by the other`, () => peers(seeing.provider).includes(name))
  return { a, b }
}

/** A constructor that records each construction's arguments and counts each socket's sends. */
function spyWebSocket(record: { made: unknown[][]; sent: number }): (base: unknown) => unknown {
  return (base) =>
    new Proxy(base as new (...args: unknown[]) => object, {
      construct(target, args) {
        record.made.push(args)
        const socket = Reflect.construct(target, args) as { send: (data: unknown) => void }
        const send = socket.send.bind(socket)
        socket.send = (data) => {
          record.sent += 1
          send(data)
        }
        return socket
      },
    })
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'connect: false opens nothing until connect(); then connecting, connected, sync(true)',
    async run(t) {
      const { provider, log } = t.open('alice', new Y.Doc(), { connect: false })
      await pause(200)
      expect(provider.ws).toBeNull()
      expect(provider.shouldConnect).toBe(false)
      expect(log).toEqual([])
      provider.connect()
      expect(provider.shouldConnect).toBe(true)
      await until('synced', () => provider.synced)
      expect(log).toEqual(['status:connecting', 'status:connected', 'sync:true'])
      expect(provider.wsconnected).toBe(true)
      expect(provider.wsconnecting).toBe(false)
    },
  },
  {
    name: "sync(true) comes once the server's copy is applied (what Lexical's shouldBootstrap relies on)",
    async run(t) {
      const key = fresh('bootstrap')
      const docA = new Y.Doc()
      await synced(t, 'alice', docA)
      docA.getText(key).insert(0, 'written before Bob opened')
      // The content has reached Bob's server: a probe through it sees it.
      const probeDoc = new Y.Doc()
      const probe = t.open('bob', probeDoc)
      await until("the content at Bob's server", () => probeDoc.getText(key).length > 0)
      probe.provider.destroy()
      const docB = new Y.Doc()
      const atSync: string[] = []
      const b = t.open('bob', docB, { connect: false })
      // As Lexical's CollaborationPlugin with shouldBootstrap: an empty document at sync(true) is filled.
      b.onSync((state) => {
        if (!state) return
        atSync.push(docB.getText(key).toString())
        if (docB.getText(key).length === 0) docB.getText(key).insert(0, 'bootstrapped')
      })
      b.provider.connect()
      await until('bob synced', () => b.provider.synced)
      expect(atSync).toEqual(['written before Bob opened'])
      await pause(300)
      expect(docA.getText(key).toString()).toBe('written before Bob opened')
    },
  },
  {
    name: 'a failed connect: connecting, connection-error, connection-close with the close event; never connected',
    async run(t) {
      const { provider, log } = t.open('alice', new Y.Doc(), {
        serverUrl: t.deadUrl,
        connect: false,
        maxBackoffTime: 100,
      })
      provider.connect()
      await until('two failed attempts', () => log.filter((l) => l.startsWith('connection-close')).length >= 2)
      provider.disconnect()
      expect(log.slice(0, 4)).toEqual([
        'status:connecting',
        'connection-error',
        'connection-close:code',
        'status:connecting',
      ])
      expect(log).not.toContain('status:connected')
      expect(log).not.toContain('sync:true')
      expect(provider.wsUnsuccessfulReconnects).toBeGreaterThanOrEqual(2)
    },
  },
  {
    name: 'reconnect attempts back off, never more than maxBackoffTime apart',
    async run(t) {
      const { provider, log } = t.open('alice', new Y.Doc(), {
        serverUrl: t.deadUrl,
        connect: false,
        maxBackoffTime: 150,
      })
      const at: number[] = []
      const watch = setInterval(() => {
        while (at.length < log.filter((l) => l === 'status:connecting').length) at.push(Date.now())
      }, 5)
      provider.connect()
      try {
        await until('seven attempts', () => at.length >= 7, 60_000)
      } finally {
        clearInterval(watch)
        provider.disconnect()
      }
      const gaps = at.slice(1).map((time, i) => time - (at[i] ?? time))
      // Uncapped, the waits double (y-websocket 100 ms · 2ⁿ; e2e-col 200 ms · 2ⁿ with equal jitter,
      // at least half of it): the last four would take 6 s or more. Capped at 150 ms they take
      // 0.6 s plus what a busy machine adds to each, so the bound is on the doubling, not on the
      // machine's speed.
      const lastFour = gaps.slice(-4).reduce((sum, gap) => sum + gap, 0)
      expect({ gaps, lastFourUnder4s: lastFour < 4000 }).toMatchObject({ lastFourUnder4s: true })
    },
  },
  {
    name: 'the server going away: connection-close with its close event, sync(false), disconnected; then synced again',
    async run(t) {
      const { provider, log } = await synced(t, 'alice')
      log.length = 0
      await t.restartServer('alice')
      await until('synced again', () => provider.synced && log.includes('sync:true'), 20_000)
      expect(log.slice(0, 3)).toEqual(['connection-close:code', 'sync:false', 'status:disconnected'])
      expect(log.at(-1)).toBe('sync:true')
      expect(provider.wsUnsuccessfulReconnects).toBe(0)
    },
  },
  {
    name: 'disconnect(): connection-close(null), sync(false), disconnected; edits made meanwhile reach the peer on connect()',
    async run(t) {
      const key = fresh('offline-edit')
      const docA = new Y.Doc()
      const docB = new Y.Doc()
      const a = await synced(t, 'alice', docA)
      await synced(t, 'bob', docB)
      a.log.length = 0
      a.provider.disconnect()
      expect(a.log).toEqual(['connection-close:null', 'sync:false', 'status:disconnected'])
      expect(a.provider.wsconnected).toBe(false)
      expect(a.provider.shouldConnect).toBe(false)
      docA.getText(key).insert(0, 'while disconnected')
      await pause(300)
      expect(docB.getText(key).toString()).toBe('')
      a.provider.connect()
      await until('the edit at Bob', () => docB.getText(key).toString() === 'while disconnected')
    },
  },
  {
    name: "disconnect() clears the peers' presence at once",
    async run(t) {
      const { a } = await pairShowing(t, 'bob')
      a.provider.disconnect()
      expect(peers(a.provider)).toEqual([])
      expect(a.provider.awareness.getLocalState()).not.toBeNull()
    },
  },
  {
    name: 'destroy() sends the presence removal: the peer drops it at once, not after the 30 s timeout',
    async run(t) {
      const { a, b } = await pairShowing(t, 'alice')
      a.provider.destroy()
      await until('Alice gone at Bob', () => !peers(b.provider).includes('Alice'), 3000)
    },
  },
  {
    name: 'a late joiner sees an idle peer within 2 s (the current presence is sent on connect)',
    async run(t) {
      const a = await synced(t, 'alice')
      a.provider.awareness.setLocalStateField('note', 'Alice (idle)')
      // Her presence has reached Bob's server: a probe there sees it. Then she stays idle.
      const probe = t.open('bob', new Y.Doc())
      await until("Alice's presence at Bob's server", () => peerNotes(probe.provider).includes('Alice (idle)'))
      probe.provider.destroy()
      const b = t.open('bob', new Y.Doc())
      await until('Bob sees Alice', () => peerNotes(b.provider).includes('Alice (idle)'), 2000)
    },
  },
  {
    name: 'the awareness handed in is the one carried',
    async run(t) {
      const docA = new Y.Doc()
      const awareness = new Awareness(docA)
      const a = await synced(t, 'alice', docA, { awareness })
      expect(a.provider.awareness).toBe(awareness)
      awareness.setLocalStateField('note', 'Alice (own awareness)')
      const b = await synced(t, 'bob')
      await until('Bob sees her', () => peerNotes(b.provider).includes('Alice (own awareness)'))
    },
  },
  {
    name: "a peer's name",
    differs:
      "y-websocket shows the name a page picked; e2e-col names a peer by the Signal account that sent its presence (as this person's contacts tell people apart) and keeps the page's pick as user.pickedName",
    async run(t) {
      const a = await synced(t, 'alice')
      // Alice's page calls itself Bob.
      a.provider.awareness.setLocalStateField('user', { name: 'Bob' })
      const b = await synced(t, 'bob')
      if (t.kind === 'y-websocket') return until('the picked name at Bob', () => peers(b.provider).includes('Bob'))
      await until("Alice's account named at Bob, her pick kept", () =>
        peerStates(b.provider).some((s) => {
          const user = s['user'] as { name?: string; pickedName?: string } | undefined
          const signal = s['signal'] as { shown?: string } | undefined
          return user?.pickedName === 'Bob' && user.name !== 'Bob' && user.name === signal?.shown
        }),
      )
    },
  },
  {
    name: 'two people on one room converge both ways',
    async run(t) {
      const key = fresh('both-ways')
      const docA = new Y.Doc()
      const docB = new Y.Doc()
      await synced(t, 'alice', docA)
      await synced(t, 'bob', docB)
      docA.getText(key).insert(0, 'A')
      docB.getText(key).insert(0, 'B')
      const same = (): boolean =>
        docA.getText(key).length === 2 && docA.getText(key).toString() === docB.getText(key).toString()
      await until('both hold A and B', same)
    },
  },
  {
    name: 'WebSocketPolyfill is the class constructed, with the protocols',
    async run(t) {
      const record = { made: [] as unknown[][], sent: 0 }
      const { provider } = await synced(t, 'alice', new Y.Doc(), {
        wrapWebSocket: spyWebSocket(record),
        protocols: ['yjs'],
      })
      expect(record.made.length).toBeGreaterThanOrEqual(1)
      expect(record.made[0]?.[0]).toBe(provider.url)
      expect(record.made[0]?.[1]).toEqual(['yjs'])
      expect(provider.ws).not.toBeNull()
    },
  },
  {
    name: 'resyncInterval asks the server again while connected',
    async run(t) {
      const withResync = { made: [] as unknown[][], sent: 0 }
      const without = { made: [] as unknown[][], sent: 0 }
      await synced(t, 'alice', new Y.Doc(), { wrapWebSocket: spyWebSocket(withResync), resyncInterval: 100 })
      await synced(t, 'alice', new Y.Doc(), { wrapWebSocket: spyWebSocket(without) })
      const before = [withResync.sent, without.sent]
      await pause(650)
      expect(withResync.sent - (before[0] ?? 0)).toBeGreaterThanOrEqual(4)
      expect(without.sent - (before[1] ?? 0)).toBeLessThanOrEqual(1)
    },
  },
  {
    name: 'params',
    differs:
      'y-websocket appends them to the URL; a sidecar takes none (it checks the page origin), so E2eColProvider refuses them: CLIENT_UNSUPPORTED_OPTION',
    async run(t) {
      const open = (): Opened => t.open('alice', new Y.Doc(), { connect: false, params: { token: 'x' } })
      if (t.kind === 'y-websocket') expect(open().provider.url).toMatch(/\?token=x$/)
      else expect(open).toThrow(expect.objectContaining({ code: 'CLIENT_UNSUPPORTED_OPTION' }))
    },
  },
  {
    name: 'the room',
    differs: "y-websocket takes any name; e2e-col's room is the document's UUID: CLIENT_BAD_DOC_ID otherwise",
    async run(t) {
      const open = (): Opened => t.open('alice', new Y.Doc(), { connect: false, room: 'my-room' })
      if (t.kind === 'y-websocket') expect(open().provider.roomname).toBe('my-room')
      else expect(open).toThrow(expect.objectContaining({ code: 'CLIENT_BAD_DOC_ID' }))
    },
  },
  {
    name: 'url is serverUrl plus the room',
    differs: "e2e-col's path is serverUrl + /v1/docs/ + the room (the sidecar also serves its API and chat)",
    async run(t) {
      const { provider } = t.open('alice', new Y.Doc(), { connect: false, serverUrl: 'ws://127.0.0.1:9/' })
      expect(provider.serverUrl).toBe('ws://127.0.0.1:9')
      const path = t.kind === 'y-websocket' ? '/' : '/v1/docs/'
      expect(provider.url).toBe(`ws://127.0.0.1:9${path}${t.room}`)
    },
  },
]
