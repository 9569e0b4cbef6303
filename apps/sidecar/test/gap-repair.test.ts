/**
 * Regression (found by the reliability soak): a member that missed one update for good (here its
 * identity failed for that send, which is acknowledged) kept every later update of that author
 * pending, and nothing ever asked for the missing one. The replica now asks the group while it
 * holds pending updates, and the browser gets what was missing.
 */
import { createToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as Y from 'yjs'
import { A, B, baseEnv, connect, envelope, isAck, poll, sidecar } from './harness.ts'

/** Two sidecars of a three-member group (the third never runs) on a toy that can fail a recipient. */
async function pairWithAbsentMember(env: Record<string, string> = {}) {
  const toy = await createToySignal({
    accounts: [A, B],
    groups: [{ name: 'doc', members: [A, B, '+33600000003'] }],
    faults: true,
    keepAliveMs: 1000,
  })
  onTestFinished(() => toy.close())
  const docId = randomUUID()
  const [sa, sb] = await Promise.all([sidecar(baseEnv(toy, A, docId, env)), sidecar(baseEnv(toy, B, docId, env))])
  const [a1, b1] = await Promise.all([connect(sa, docId), connect(sb, docId)])
  return { toy, docId, a1, b1 }
}

/** Waits until the text B's browser received (updates and sync answers) is `expected`. */
async function browserOnBHolds(b1: Awaited<ReturnType<typeof connect>>, expected: string, what: string, ms: number) {
  const seen = new Y.Doc()
  await poll(
    () => {
      for (const e of b1.received.splice(0))
        if (e.kind === 'update' || e.kind === 'sync-response') Y.applyUpdate(seen, e.payload)
      return seen.getText('t').toString() === expected
    },
    what,
    ms,
  )
  expect(seen.getText('t').toString()).toBe(expected)
}

describe('a replica with a gap', () => {
  it('asks the group until the missing update arrives, and its browser converges', async () => {
    const { toy, docId, a1, b1 } = await pairWithAbsentMember()
    const author = new Y.Doc()
    const text = author.getText('t')
    const step = (s: string) => {
      const before = Y.encodeStateVector(author)
      text.insert(text.length, s)
      return Y.encodeStateAsUpdate(author, before)
    }
    // B (the first recipient) is untrusted for the first send: acknowledged, never delivered to B.
    toy.faults.identityFailNextSends(1, { mode: 'per-recipient' })
    const first = envelope(docId, a1.senderId, step('one '))
    a1.send(first)
    await a1.waitFor(isAck(first.messageId))
    const second = envelope(docId, a1.senderId, step('two'))
    a1.send(second)
    await a1.waitFor(isAck(second.messageId))

    await browserOnBHolds(b1, 'one two', 'the browser on B to hold both updates', 8000)
  }, 20_000)

  it('asks once things went quiet, so a lost last update (no gap to see) still arrives', async () => {
    const { toy, docId, a1, b1 } = await pairWithAbsentMember({
      E2E_COL_SYNC_DELAY_MIN_MS: '5',
      E2E_COL_SYNC_DELAY_MAX_MS: '50',
    })
    const author = new Y.Doc()
    author.getText('t').insert(0, 'last words')
    toy.faults.identityFailNextSends(1, { mode: 'per-recipient' })
    const only = envelope(docId, a1.senderId, Y.encodeStateAsUpdate(author))
    a1.send(only)
    await a1.waitFor(isAck(only.messageId))
    await browserOnBHolds(b1, 'last words', 'the browser on B to get the lost update', 10_000)
  }, 20_000)
})
