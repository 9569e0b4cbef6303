/**
 * How a binding treats each kind of frame from the sidecar: what it applies, what counts as the
 * sidecar's answer, and what it reports (a peer's malformed payload is reported, never thrown).
 */
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { connected, errorPayload, scriptedBindings, settle, SIDECAR_ID, textUpdate } from './scripted-sidecar.ts'

const { open } = scriptedBindings()

describe('frames from the sidecar', () => {
  test('a malformed update payload is reported as CLIENT_BAD_FRAME naming its kind, and later updates still apply', async () => {
    const b = await connected(open)
    const socket = b.socket()
    socket.deliver({ kind: 'update', payload: new Uint8Array([255, 255, 255, 255]) })
    expect(b.errors.map((e) => [e.code, e.message])).toEqual([['CLIENT_BAD_FRAME', 'malformed update payload']])
    expect(b.errors[0]?.cause).toBeInstanceOf(Error)
    socket.deliver({ kind: 'update', payload: textUpdate('still applied') })
    expect(b.text.toString()).toBe('still applied')
  })

  test("a peer's snapshot is applied to the document", async () => {
    const b = await connected(open)
    const socket = b.socket()
    socket.deliver({ kind: 'snapshot', payload: textUpdate('from a snapshot') })
    expect(b.text.toString()).toBe('from a snapshot')
    expect(b.errors).toEqual([])
  })

  test("a snapshot does not mark the binding synced; the sidecar's sync-response does", async () => {
    const b = await connected(open)
    const socket = b.socket()
    socket.deliver({ kind: 'snapshot', senderId: SIDECAR_ID, payload: textUpdate('x') })
    expect(b.conn.status().synced).toBe(false)
    socket.deliver({ kind: 'sync-response', senderId: SIDECAR_ID, payload: textUpdate('y') })
    expect(b.conn.status().synced).toBe(true)
  })

  test('awareness frames are ignored without error when presence is off', async () => {
    const b = await connected(open, { awareness: false })
    const socket = b.socket()
    socket.deliver({ kind: 'awareness', payload: new Uint8Array([1, 2, 3]) })
    expect(b.errors).toEqual([])
    expect(b.conn.awareness).toBeNull()
  })

  test("a plain update does not count as an answer to a peer's pending sync-request", async () => {
    const b = open()
    b.text.insert(0, 'what the asker lacks')
    await b.conn.ready
    const socket = b.socket()
    socket.open()
    await settle()
    socket.deliver({ kind: 'sync-request', payload: Y.encodeStateVector(new Y.Doc()) })
    // Someone else's update that happens to carry all of our content: it is not a sync answer.
    socket.deliver({ kind: 'update', senderId: SIDECAR_ID, payload: Y.encodeStateAsUpdate(b.doc) })
    b.timers.advance(10)
    const answers = socket.sent.filter((e) => e.kind === 'sync-response')
    expect(answers).toHaveLength(1)
    const asker = new Y.Doc()
    Y.applyUpdate(asker, answers[0]?.payload ?? new Uint8Array())
    expect(asker.getText('t').toString()).toBe('what the asker lacks')
  })

  test('an unreadable delivery note changes nothing and reports nothing', async () => {
    const b = await connected(open)
    const socket = b.socket()
    const before = b.conn.status().delivery
    socket.deliver({ kind: 'delivery', senderId: SIDECAR_ID, payload: new TextEncoder().encode('not a note') })
    expect(b.errors).toEqual([])
    expect(b.conn.status().delivery).toBe(before)
  })
})

/** A binding with one local change sent and a checkpoint already written; commits cleared. */
async function sentChange() {
  const b = await connected(open, { checkpointDelayMs: 1000, flushWindowMs: 10 })
  const socket = b.socket()
  b.text.insert(0, 'a change')
  b.timers.advance(10)
  await settle()
  b.timers.advance(1000)
  await settle()
  const update = socket.sent.find((e) => e.kind === 'update')
  if (update === undefined) throw new Error('the change was not sent')
  b.storage.commits.length = 0
  return { ...b, socket, update }
}

/** The sidecar refuses that sent change with `code`. */
async function sentChangeRefused(code: string, message: string) {
  const b = await sentChange()
  b.socket.deliver({
    kind: 'error',
    senderId: SIDECAR_ID,
    messageId: b.update.messageId,
    payload: errorPayload(code, message),
  })
  return b
}

describe('error frames for an outbox entry', () => {
  test('a dropped entry (PROTO_*) is not counted as a Signal refusal, and its removal is checkpointed', async () => {
    const b = await sentChangeRefused('PROTO_TRUNCATED', 'cut short')
    expect(b.conn.status().pending).toBe(0)
    expect(b.conn.status().delivery.refused).toBe(0)
    expect(b.conn.status().delivery.signal).not.toBe('refused')
    expect(b.errors.map((e) => [e.code, e.remoteCode])).toEqual([['CLIENT_REJECTED', 'PROTO_TRUNCATED']])
    b.timers.advance(1000)
    await settle()
    expect(b.storage.commits.filter((c) => c.checkpoint !== undefined).map((c) => c.remove)).toEqual([[b.update.seq]])
  })

  test('a Signal refusal (SIDECAR_SEND_REJECTED) is counted in the delivery status', async () => {
    const b = await sentChangeRefused('SIDECAR_SEND_REJECTED', 'untrusted identity')
    expect(b.conn.status().delivery).toMatchObject({ signal: 'refused', refused: 1, reason: 'untrusted identity' })
  })

  test('an error that keeps the entry neither counts a refusal nor writes a checkpoint', async () => {
    const b = await sentChangeRefused('SIDECAR_BUSY', 'try later')
    expect(b.conn.status().pending).toBe(1)
    expect(b.conn.status().delivery.refused).toBe(0)
    b.timers.advance(1000)
    await settle()
    expect(b.storage.commits.filter((c) => c.checkpoint !== undefined)).toEqual([])
  })
})
