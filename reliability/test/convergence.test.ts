/**
 * Convergence without new edits. B's sidecar misses everything A wrote (its events stream is down
 * and the daemon keeps only the newest message for it: A's `health`), and then B's first requests
 * are lost too. Nobody edits again; B learns it is behind from the state vector in A's health,
 * keeps asking with backoff, and its page ends with A's text.
 */
import { decodeBody, decodeEnvelope, decodeHealth, encodeEnvelope, unpackBatch, type Envelope } from '@e2e-col/protocol'
import type { ToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { A, B, envelopeOf, metric, reader, sidecar, sidecarEnv, toyWithThree, waitFor, wsUrl } from './edge.ts'

/** The whole (unchunked) envelopes `account` put on the group. */
function sentBy(toy: ToySignal, account: string): Envelope[] {
  const out: Envelope[] = []
  for (const s of toy.sends()) {
    if (s.account !== account || !s.message.startsWith('e2e-col:')) continue
    const env = decodeEnvelope(decodeBody(s.message))
    out.push(...(env.kind === 'batch' ? unpackBatch(env) : [env]))
  }
  return out
}
const kindsSentBy = (toy: ToySignal, account: string): string[] => sentBy(toy, account).map((e) => e.kind)
/** True once `account` announced its replica's state vector (not only its capabilities). */
const announcedState = (toy: ToySignal, account: string): boolean =>
  sentBy(toy, account).some((e) => e.kind === 'health' && decodeHealth(e.payload).stateVector !== undefined)

describe('convergence without new edits', () => {
  it('a member that received nothing learns it is behind from a health envelope and asks until it has caught up', async () => {
    const toy = await toyWithThree({ maxQueuedPerAccount: 1 })
    const docId = randomUUID()
    // Health soon after a change; the quiet-period request much later (20 × 300 ms, doubled at most).
    const env = { E2E_COL_HEALTH_INTERVAL_MS: '1000', E2E_COL_SYNC_DELAY_MAX_MS: '300' }
    const sa = await sidecar(sidecarEnv(toy, A, docId, env))
    const sb = await sidecar(sidecarEnv(toy, B, docId, env))
    const atB = await reader(wsUrl(sb, docId))
    const page = await reader(wsUrl(sa, docId))

    // B's events stream goes down and stays down while A writes.
    toy.faults.failEvents(1_000_000)
    toy.faults.cutStreams()
    const author = new Y.Doc()
    const text = author.getText('t')
    const edits: Envelope[] = []
    const senderId = randomUUID()
    author.on('update', (u: Uint8Array) => edits.push(envelopeOf(docId, senderId, u)))
    for (const word of ['one ', 'two ', 'three']) text.insert(text.length, word)
    for (const e of edits) page.ws.send(encodeEnvelope(e))
    await waitFor('A’s health envelope with its state vector on the group', () => announcedState(toy, A), 20_000)
    expect(kindsSentBy(toy, A).filter((k) => k === 'sync-request')).toEqual([]) // not yet: only the health tells B

    // B's stream comes back with only A's health; B's first two requests are refused by the daemon
    // (B's sends only: A's health, every second, must not take the refusals on a slow machine).
    toy.faults.reset()
    toy.faults.failNextSendsWith(2, { code: -1, message: 'Failed to send message' }, { from: B })
    const seen = new Y.Doc()
    await waitFor(
      'B’s page to hold A’s text',
      () => {
        for (const e of atB.received.splice(0))
          if (e.kind === 'update' || e.kind === 'sync-response') Y.applyUpdate(seen, e.payload)
        return seen.getText('t').toString() === 'one two three'
      },
      40_000,
    ).catch((error: unknown) => {
      console.log(
        `sent by A: ${kindsSentBy(toy, A).join(' ')}; by B: ${kindsSentBy(toy, B).join(' ')}; B's page: ${JSON.stringify(seen.getText('t').toString())}`,
      )
      throw error
    })
    const asked = await metric(sb, 'e2e_col_replica_messages_sent_total{kind="sync-request"}')
    console.log(`B caught up without new edits after ${asked} sync-request(s) (the first ones refused by the daemon)`)
    expect(asked).toBeGreaterThanOrEqual(2)
  }, 90_000)
})
