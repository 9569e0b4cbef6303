/**
 * A binding's timing and what it tells the page, on a manual clock: presence riding behind an
 * edit and its own idle and interval bounds, status events for each change in what is pending,
 * the default 20–300 ms wait before answering a peer, and the page lifecycle it follows by default.
 */
import * as Y from 'yjs'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { connectDoc, createMemoryStorage } from '../src/index.ts'
import { DOC_ID } from './client-harness.ts'
import { connected, PEER_ID, scriptedBindings, scriptedSockets, settle, sidecarFrame } from './scripted-sidecar.ts'

const { open } = scriptedBindings()

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('presence', () => {
  test('a changed local state rides right behind the next edit instead of waiting for the idle timer', async () => {
    const b = await connected(open, { awareness: { idleMs: 60_000 } })
    const announced = b.sent('awareness').length
    b.conn.awareness?.setLocalStateField('user', { name: 'Ada' })
    b.text.insert(0, 'x')
    await settle()
    const kinds = b.sent().map((e) => e.kind)
    expect(b.sent('awareness')).toHaveLength(announced + 1)
    expect(kinds.slice(-2)).toEqual(['update', 'awareness'])
  })

  test('alone, a changed state is sent after the idleMs given', async () => {
    const b = await connected(open, { awareness: { idleMs: 50, intervalMs: 0 } })
    const announced = b.sent('awareness').length
    b.conn.awareness?.setLocalStateField('user', { name: 'Ada' })
    b.timers.advance(49)
    expect(b.sent('awareness')).toHaveLength(announced)
    b.timers.advance(1)
    expect(b.sent('awareness')).toHaveLength(announced + 1)
  })

  test('two standalone presence messages are at least the intervalMs given apart', async () => {
    const b = await connected(open, { awareness: { idleMs: 10, intervalMs: 100 } })
    const announced = b.sent('awareness').length
    b.conn.awareness?.setLocalStateField('user', { name: 'Ada' })
    b.timers.advance(10)
    expect(b.sent('awareness')).toHaveLength(announced + 1)
    b.conn.awareness?.setLocalStateField('user', { name: 'Ada L.' })
    b.timers.advance(99) // t = 109
    expect(b.sent('awareness')).toHaveLength(announced + 1)
    b.timers.advance(1) // t = 110: 100 ms after the first
    expect(b.sent('awareness')).toHaveLength(announced + 2)
  })

  test('a lifecycle without onLeave still binds a document with presence', () => {
    const { WebSocket } = scriptedSockets()
    const bind = () =>
      connectDoc({
        doc: new Y.Doc(),
        sidecarUrl: 'ws://sidecar.test',
        docId: DOC_ID,
        storage: createMemoryStorage(),
        WebSocket,
        awareness: {},
        lifecycle: { onHide: () => () => {} },
        transport: { network: null },
      })
    let conn: ReturnType<typeof bind> | undefined
    expect(() => (conn = bind())).not.toThrow()
    return conn?.close()
  })
})

describe('status events', () => {
  test('an edit still in the flush window is announced as pending at once', async () => {
    const b = open()
    await b.conn.ready
    b.text.insert(0, 'a') // the first edit leaves at once
    b.text.insert(1, 'b') // this one waits for the end of the window
    expect(b.statuses.at(-1)?.pending).toBe(2)
  })

  test('waiting updates merged into one entry while offline are announced as one', async () => {
    const b = open({ compactAt: 1 })
    await b.conn.ready
    b.text.insert(0, 'a')
    await settle()
    b.text.insert(1, 'b')
    b.timers.advance(250)
    await settle()
    expect(b.conn.status().pending).toBe(1)
    expect(b.statuses.at(-1)?.pending).toBe(1)
  })
})

describe("answering a peer's sync request", () => {
  for (const [random, delay] of [
    [0, 20],
    [0.99999, 299],
  ] as const) {
    test(`by default waits ${delay} ms when the random draw is ${random}`, async () => {
      const b = await connected(open, { random: () => random, syncResponseDelayMs: undefined })
      b.socket().receive(
        sidecarFrame({ kind: 'sync-request', senderId: PEER_ID, payload: Y.encodeStateVector(new Y.Doc()) }),
      )
      b.timers.advance(delay - 1)
      expect(b.sent('sync-response')).toHaveLength(0)
      b.timers.advance(1)
      expect(b.sent('sync-response')).toHaveLength(1)
    })
  }
})

describe('the default page lifecycle', () => {
  test('where there is a page, hiding it checkpoints at once', async () => {
    const page = new EventTarget()
    vi.stubGlobal('window', page)
    vi.stubGlobal('document', Object.assign(new EventTarget(), { visibilityState: 'visible' }))
    const b = open({ lifecycle: undefined })
    await b.conn.ready
    b.text.insert(0, 'x')
    await settle()
    expect(b.storage.commits.some((c) => c.checkpoint !== undefined)).toBe(false)
    page.dispatchEvent(new Event('pagehide'))
    await settle()
    expect(b.storage.commits.some((c) => c.checkpoint !== undefined)).toBe(true)
    await b.conn.close() // while the page's globals still stand: detaching removes its listeners
  })
})
