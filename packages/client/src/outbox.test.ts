import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { Outbox, SEQ_BLOCK } from './outbox.ts'
import { createMemoryStorage, type ClientStorage, type OutboxEntry, type StorageCommit } from './storage.ts'

/** An outbox over memory storage with an in-order write chain, recording what it sends and commits. */
function harness(options: { compactAt?: number; connected?: boolean } = {}) {
  const storage: ClientStorage = createMemoryStorage()
  const sent: OutboxEntry[] = []
  const commits: StorageCommit[] = []
  const events: string[] = []
  let writes: Promise<void> = Promise.resolve()
  let failCommits = false
  const state = { connected: options.connected ?? true }
  const outbox = new Outbox({
    compactAt: options.compactAt ?? 32,
    writes: {
      chain(task) {
        writes = writes.then(task)
      },
      async commit(change) {
        commits.push(change)
        events.push('commit')
        if (failCommits) return false
        await storage.commit(change)
        return true
      },
    },
    connected: () => state.connected,
    send: (entry) => {
      events.push(`send ${entry.messageId}`)
      sent.push(entry)
    },
    afterFirstSend: () => events.push('after-first-send'),
    onChange: () => events.push('change'),
  })
  return {
    outbox,
    storage,
    sent,
    commits,
    events,
    state,
    failCommits: () => (failCommits = true),
    idle: () => writes,
  }
}

/** Adds one change while connected and returns the entry that was sent. */
async function oneSent(h: ReturnType<typeof harness>): Promise<OutboxEntry> {
  h.outbox.add('update', edit('a'))
  await h.idle()
  const [entry] = h.sent
  if (entry === undefined) throw new Error('the change was not sent')
  return entry
}

/** A real Yjs update inserting `text` into a fresh document. */
function edit(text: string): Uint8Array {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}

describe('Outbox', () => {
  test('a new change is stored before it is sent, and counts as pending from the moment it is added', async () => {
    const h = harness()
    h.outbox.add('update', edit('a'))
    expect(h.outbox.pending).toBe(1) // still being written
    expect(h.sent).toEqual([])
    await h.idle()
    const [entry] = h.sent
    expect(entry?.kind).toBe('update')
    expect(h.events.indexOf('commit')).toBeLessThan(h.events.indexOf(`send ${entry?.messageId}`))
    expect(h.events.slice(-2)).toEqual(['after-first-send', 'change'])
    expect((await h.storage.load()).outbox.map((e) => e.messageId)).toEqual([entry?.messageId])
    expect(h.outbox.pending).toBe(1)
  })

  test('while disconnected a change is stored and not sent; a connect resends every entry with its first id and seq', async () => {
    const h = harness({ connected: false })
    h.outbox.add('update', edit('a'))
    h.outbox.add('snapshot', edit('b'))
    await h.idle()
    expect(h.sent).toEqual([])
    expect(h.events).not.toContain('after-first-send')
    const stored = (await h.storage.load()).outbox
    h.state.connected = true
    h.outbox.resendAll()
    expect(h.sent).toEqual(stored)
    h.outbox.resendAll()
    expect(h.sent.slice(2)).toEqual(stored)
  })

  test('an ack settles its entry once; the checkpoint takes the settled seqs to delete', async () => {
    const h = harness()
    h.outbox.add('update', edit('a'))
    h.outbox.add('update', edit('b'))
    await h.idle()
    const [first, second] = h.sent
    expect(h.outbox.ack(first!.messageId)).toBe(true)
    expect(h.outbox.ack(first!.messageId)).toBe(false) // a duplicate ack
    expect(h.outbox.ack('not-an-entry')).toBe(false) // an ephemeral message's ack
    expect(h.outbox.pending).toBe(1)
    expect(h.outbox.takeSettled()).toEqual([first!.seq])
    expect(h.outbox.takeSettled()).toEqual([])
    h.outbox.resendAll()
    expect(h.sent.slice(2)).toEqual([second])
  })

  test('a message id another page holds goes again as the same change under a fresh id and seq', async () => {
    const h = harness()
    const original = await oneSent(h)
    expect(h.outbox.reject(original.messageId, 'SIDECAR_MESSAGE_ID_TAKEN')).toBe('reissued')
    expect(h.outbox.pending).toBe(1) // being rewritten, still pending
    await h.idle()
    const fresh = h.sent[1]!
    expect(fresh.messageId).not.toBe(original.messageId)
    expect(fresh.seq).toBeGreaterThan(original.seq)
    expect(fresh.payload).toEqual(original.payload)
    expect((await h.storage.load()).outbox).toEqual([fresh])
    expect(h.outbox.takeSettled()).toEqual([]) // the old entry was removed in the same write
  })

  test.each(['SIDECAR_SEND_REJECTED', 'SIDECAR_READ_ONLY', 'PROTO_BAD_ENVELOPE'])(
    'a refusal resending cannot cure (%s) drops the entry for good',
    async (code) => {
      const h = harness()
      const entry = await oneSent(h)
      expect(h.outbox.reject(entry.messageId, code)).toBe('dropped')
      expect(h.outbox.pending).toBe(0)
      expect(h.outbox.takeSettled()).toEqual([entry.seq])
      h.outbox.resendAll()
      expect(h.sent).toHaveLength(1)
    },
  )

  test('any other refusal keeps the entry for the next connect; a refusal of an unknown id changes nothing', async () => {
    const h = harness()
    const entry = await oneSent(h)
    expect(h.outbox.reject(entry.messageId, 'SIDECAR_OVERLOADED')).toBe('kept')
    expect(h.outbox.reject('unknown', 'PROTO_BAD_ENVELOPE')).toBe('kept')
    expect(h.outbox.reject('unknown', 'SIDECAR_MESSAGE_ID_TAKEN')).toBe('kept')
    expect(h.outbox.pending).toBe(1)
    expect(h.outbox.takeSettled()).toEqual([])
  })

  test('more than compactAt waiting updates merge into one entry while disconnected, never while connected', async () => {
    const h = harness({ compactAt: 2, connected: false })
    const doc = new Y.Doc()
    const updates: Uint8Array[] = []
    doc.on('update', (u: Uint8Array) => updates.push(u))
    for (const ch of 'abcd') doc.getText('t').insert(doc.getText('t').length, ch)
    for (const u of updates) h.outbox.add('update', u)
    await h.idle()
    const stored = (await h.storage.load()).outbox
    expect(stored).toHaveLength(2) // the first three merged when the third came, the fourth waits beside them
    const replica = new Y.Doc()
    for (const e of stored) Y.applyUpdate(replica, e.payload)
    expect(replica.getText('t').toString()).toBe('abcd')
    expect(h.outbox.pending).toBe(stored.length)

    const online = harness({ compactAt: 2, connected: true })
    for (const u of updates) online.outbox.add('update', u)
    await online.idle()
    await online.outbox.compactIfNeeded()
    expect((await online.storage.load()).outbox).toHaveLength(4)
  })

  test('a restored outbox resumes numbering above the stored mark and every stored seq', async () => {
    const h = harness()
    const entry: OutboxEntry = { seq: 9000, messageId: 'm', kind: 'update', payload: edit('a') }
    h.outbox.restore({ checkpoint: undefined, outbox: [entry], seqMark: 100, skipped: 0 })
    expect(h.outbox.pending).toBe(1)
    expect(h.outbox.nextSeq()).toBe(9001)
    expect(h.outbox.seqMark).toBe(9001 + SEQ_BLOCK)
    const fresh = harness()
    fresh.outbox.restore({ checkpoint: undefined, outbox: [], seqMark: 100, skipped: 0 })
    expect(fresh.outbox.nextSeq()).toBe(100)
  })

  test('a used-up seq block stores its new mark through the write chain', async () => {
    const h = harness()
    h.outbox.restore({ checkpoint: undefined, outbox: [], seqMark: 0, skipped: 0 })
    for (let i = 0; i < SEQ_BLOCK; i++) h.outbox.nextSeq()
    await h.idle()
    expect(h.commits).toEqual([{ seqMark: 2 * SEQ_BLOCK }])
    expect((await h.storage.load()).seqMark).toBe(2 * SEQ_BLOCK)
  })

  test('a change whose write failed is still kept in memory and sent', async () => {
    const h = harness()
    h.failCommits()
    h.outbox.add('update', edit('a'))
    await h.idle()
    expect(h.sent).toHaveLength(1)
    expect(h.outbox.pending).toBe(1)
    expect((await h.storage.load()).outbox).toEqual([])
  })
})
