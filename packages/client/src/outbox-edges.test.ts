import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { Outbox } from './outbox.ts'
import { createMemoryStorage, type OutboxEntry } from './storage.ts'

/** An outbox over memory storage with an in-order write chain, recording what it sends. */
function harness(options: { compactAt: number; connected: boolean }) {
  const storage = createMemoryStorage()
  const sent: OutboxEntry[] = []
  let writes: Promise<void> = Promise.resolve()
  const state = { connected: options.connected }
  const outbox = new Outbox({
    compactAt: options.compactAt,
    writes: {
      chain(task) {
        writes = writes.then(task)
      },
      async commit(change) {
        await storage.commit(change)
        return true
      },
    },
    connected: () => state.connected,
    send: (entry) => sent.push(entry),
    afterFirstSend: () => {},
    onChange: () => {},
  })
  return { outbox, storage, sent, state, idle: () => writes }
}

/** Real Yjs updates of one document, one per typed text. */
function typed(...texts: string[]): Uint8Array[] {
  const doc = new Y.Doc()
  const updates: Uint8Array[] = []
  doc.on('update', (update: Uint8Array) => updates.push(update))
  for (const text of texts) doc.getText('t').insert(0, text)
  return updates
}

describe('Outbox: a reissued change', () => {
  test('no longer counts as being written once stored again', async () => {
    const h = harness({ compactAt: 32, connected: true })
    for (const u of typed('a')) h.outbox.add('update', u)
    await h.idle()
    const [original] = h.sent
    expect(h.outbox.reject(original!.messageId, 'SIDECAR_MESSAGE_ID_TAKEN')).toBe('reissued')
    await h.idle()
    expect(h.outbox.pending).toBe(1)
    expect(h.outbox.ack(h.sent[1]!.messageId)).toBe(true)
    expect(h.outbox.pending).toBe(0)
  })

  test('waits for the next connect when the connection dropped while it was being stored', async () => {
    const h = harness({ compactAt: 32, connected: true })
    for (const u of typed('a')) h.outbox.add('update', u)
    await h.idle()
    const [original] = h.sent
    h.outbox.reject(original!.messageId, 'SIDECAR_MESSAGE_ID_TAKEN')
    h.state.connected = false
    await h.idle()
    expect(h.sent).toEqual([original])
    const [fresh] = (await h.storage.load()).outbox
    h.state.connected = true
    h.outbox.resendAll()
    expect(h.sent).toEqual([original, fresh])
  })
})

describe('Outbox: compaction counts and merges updates only', () => {
  test('snapshots neither count towards compactAt nor merge into an update', async () => {
    const h = harness({ compactAt: 2, connected: false })
    const [s1, s2, u] = typed('s1', 's2', 'u')
    h.outbox.add('snapshot', s1!)
    h.outbox.add('snapshot', s2!)
    h.outbox.add('update', u!)
    await h.idle()
    expect((await h.storage.load()).outbox.map((e) => e.kind)).toEqual(['snapshot', 'snapshot', 'update'])
  })

  test('past compactAt, the updates merge and the snapshots stay as they were', async () => {
    const h = harness({ compactAt: 2, connected: false })
    const [snapshot, ...updates] = typed('s', 'a', 'b', 'c')
    h.outbox.add('snapshot', snapshot!)
    for (const u of updates) h.outbox.add('update', u)
    await h.idle()
    const stored = (await h.storage.load()).outbox
    expect(stored.map((e) => e.kind)).toEqual(['snapshot', 'update'])
    expect(stored[0]?.payload).toEqual(snapshot)
  })
})
