/**
 * connectDoc's documented defaults, on a manual clock with the sidecar unreachable (every socket
 * refused): the 250 ms flush window, the checkpoint 1 s after the last change, and the outbox
 * compacted above 32 waiting updates.
 */
import { manualTimers } from '@e2e-col/sync/testing'
import type { WebSocketConstructor } from '@e2e-col/transport'
import * as Y from 'yjs'
import { afterEach, describe, expect, test } from 'vitest'
import { connectDoc, createMemoryStorage, type DocConnection, type StorageCommit } from '../src/index.ts'
import { DOC_ID } from './client-harness.ts'

const Unreachable = function () {
  throw new Error('connection refused')
} as unknown as WebSocketConstructor

const opened: DocConnection[] = []
afterEach(async () => {
  for (const conn of opened.splice(0)) await conn.close()
})

/** Lets the write chain run (not `flush()`, which would end the window early). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** A binding with every default but the clock, storage and WebSocket; what it commits, in order. */
async function offlineBinding() {
  const timers = manualTimers()
  const storage = createMemoryStorage()
  const commits: StorageCommit[] = []
  const doc = new Y.Doc()
  const conn = connectDoc({
    doc,
    sidecarUrl: 'ws://127.0.0.1:9',
    docId: DOC_ID,
    storage: {
      ...storage,
      commit: (change) => {
        commits.push(change)
        return storage.commit(change)
      },
    },
    WebSocket: Unreachable,
    timers,
    lifecycle: null,
    transport: { network: null },
  })
  opened.push(conn)
  await conn.ready
  commits.length = 0 // the load's own mark
  return { timers, commits, conn, text: doc.getText('t') }
}

describe('connectDoc defaults', () => {
  test('edits within 250 ms of a flush leave together at the end of the window', async () => {
    const { timers, commits, text } = await offlineBinding()
    text.insert(0, 'a') // at once
    await settle()
    text.insert(1, 'b')
    text.insert(2, 'c')
    timers.advance(249)
    await settle()
    expect(commits.filter((c) => c.add !== undefined)).toHaveLength(1)
    timers.advance(1)
    await settle()
    expect(commits.filter((c) => c.add !== undefined)).toHaveLength(2)
  })

  test('the full state is checkpointed 1 s after the last change', async () => {
    const { timers, commits, text } = await offlineBinding()
    text.insert(0, 'a')
    await settle()
    timers.advance(999)
    await settle()
    expect(commits.some((c) => c.checkpoint !== undefined)).toBe(false)
    timers.advance(1)
    await settle()
    expect(commits.some((c) => c.checkpoint !== undefined)).toBe(true)
  })

  test('more than 32 waiting updates are merged into one entry while the sidecar is away', async () => {
    const { timers, commits, text } = await offlineBinding()
    for (let i = 0; i < 32; i++) {
      text.insert(i, 'x')
      timers.advance(250)
      await settle()
    }
    expect(commits.some((c) => (c.remove?.length ?? 0) > 0)).toBe(false)
    text.insert(0, 'y')
    timers.advance(250)
    await settle()
    expect(commits.find((c) => (c.remove?.length ?? 0) > 0)?.remove).toHaveLength(33)
  })
})
