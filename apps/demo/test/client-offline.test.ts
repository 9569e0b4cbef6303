/**
 * The client API of a page whose sidecar cannot reach Signal (the toy's network-loss switch: the
 * daemon answers every send -32603 IOException, as signal-cli without network does): `status()`
 * and the events say "saved by your sidecar, not yet sent: Signal unreachable", the connection
 * stays up, and once the network returns the changes are sent and the status says so.
 */
import { connectDoc, createMemoryStorage, type ClientStatus, type DocConnection } from '@e2e-col/client'
import { decodeBody, decodeEnvelope, unpackBatch, type Kind } from '@e2e-col/protocol'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { NODE_STACK_WITH_FAULTS, SIDECAR_ENV_WITH_FAULTS, useDemoStack } from './pages.ts'

const until = async (what: string, predicate: () => boolean, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Longer than a quiet ask can wait after a change here (2 × 2 s), with a margin. */
const QUIET_WINDOW_MS = 6000

describe('a page whose sidecar cannot reach Signal', () => {
  const docs = { alice: new Y.Doc(), bob: new Y.Doc() }
  const conns: DocConnection[] = []
  /** Each e2e-col body sent to Signal (the toy's log): its account and the kinds it carries. */
  const bodies = (): { account: string; kinds: Kind[] }[] =>
    run.stack.toy
      .sends()
      .filter((s) => s.message.startsWith('e2e-col:'))
      .map((s) => {
        const env = decodeEnvelope(decodeBody(s.message))
        return { account: s.account, kinds: env.kind === 'batch' ? unpackBatch(env).map((e) => e.kind) : [env.kind] }
      })
  /**
   * The sidecars have gone quiet: after the last change sent, a sync ask was made (alone or riding
   * in a body with other envelopes) and no body followed for longer than a quiet ask can take. A
   * member's ask that holds nothing another lacks speaks for that other's quiet ask, which is then
   * never made (docs/sidecar.md §8.4), so which of them asks, and whether alone, varies.
   */
  let log = { length: -1, seenAt: 0 }
  const quiet = (): boolean => {
    const all = bodies()
    if (all.length !== log.length) log = { length: all.length, seenAt: Date.now() }
    let last = -1
    all.forEach((b, i) => {
      if (b.kinds.includes('update')) last = i
    })
    const asked = all.slice(last + 1).some((b) => b.kinds.includes('sync-request'))
    // With no ask seen after the last change (a busy machine logged them out of order, or each
    // member's ask spoke for the other's), twice the window of silence says the same.
    const silent = Date.now() - log.seenAt
    return (asked && silent > QUIET_WINDOW_MS) || silent > 2 * QUIET_WINDOW_MS
  }
  const run = useDemoStack(
    {
      ...NODE_STACK_WITH_FAULTS,
      sidecarEnv: { ...SIDECAR_ENV_WITH_FAULTS, E2E_COL_SYNC_DELAY_MAX_MS: '50' },
    },
    {
      closeFirst: async () => {
        for (const c of conns) await c.close()
      },
    },
  )

  test('says saved by your sidecar, Signal unreachable; keeps the socket; then sent', { timeout: 60_000 }, async () => {
    const open = (who: 'alice' | 'bob') => {
      const c = connectDoc({
        doc: docs[who],
        sidecarUrl: run.stack.sidecarUrl(who),
        docId: run.stack.docId,
        storage: createMemoryStorage(),
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        lifecycle: null,
        flushWindowMs: 20,
      })
      conns.push(c)
      return c
    }
    const alice = open('alice')
    const bob = open('bob')
    const statuses: ClientStatus[] = []
    alice.on('status', (s) => statuses.push(s))
    const sent: string[] = []
    alice.on('sent', (e) => sent.push(...e.messageIds))
    await until(
      'alice connected and told by her sidecar',
      () => alice.status().connection === 'connected' && alice.status().delivery.signal === 'reachable',
    )

    statuses.length = 0 // from here on: every status while Signal is away and after it returns
    run.stack.toy.faults.setNetworkLoss(true)
    const text = docs.alice.getText('text')
    for (let i = 0; i < 20; i++) {
      text.insert(text.length, `offline ${i}. `)
      await new Promise((r) => setTimeout(r, 30))
    }
    await until('"saved by your sidecar, Signal unreachable"', () => {
      const s = alice.status()
      return s.weakest === 'sidecar' && s.pending === 0 && s.delivery.signal === 'unreachable' && s.delivery.unsent > 0
    })
    expect(alice.status().delivery.since).not.toBeNull()
    // Two seconds more of offline editing: the socket is never closed, nothing reaches Bob.
    for (let i = 20; i < 40; i++) {
      text.insert(text.length, `offline ${i}. `)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(statuses.every((s) => s.connection === 'connected')).toBe(true)
    expect(docs.bob.getText('text').toString()).not.toContain('offline 0.')
    expect(sent).toEqual([])

    run.stack.toy.faults.setNetworkLoss(false)
    await until('Bob has every offline change', () => docs.bob.getText('text').toString() === text.toString())
    await until(
      'Alice sees them sent',
      () => alice.status().weakest === 'group' && alice.status().delivery.signal === 'reachable',
    )
    expect(sent.length).toBeGreaterThan(0)
    expect(statuses.every((s) => s.connection === 'connected')).toBe(true)
    // The page went through the three states in order and ended at "sent".
    const seen = statuses.map((s) => s.weakest).filter((w, i, all) => i === 0 || all[i - 1] !== w)
    expect(seen.at(-1)).toBe('group')
    expect(seen).toContain('sidecar')
    expect(statuses.some((s) => s.weakest === 'sidecar' && s.delivery.signal === 'unreachable')).toBe(true)
    expect(bob.status().connection).toBe('connected')
  })

  test(
    'a change Signal refuses is reported with its reason, counted, not left waiting, and cleared by the next good send',
    { timeout: 120_000 },
    async () => {
      const alice = conns[0]
      if (alice === undefined) throw new Error('the first test opens the connections')
      const errors: { code: string; remoteCode: string | undefined }[] = []
      alice.on('error', (e) => errors.push({ code: e.code, remoteCode: e.remoteCode }))
      // The fault hits the next send of Alice's sidecar (Bob's sends pass): first let it go quiet.
      // That is after the sync asks that follow the last change, however late a busy machine sends them.
      await until('the sidecars gone quiet after their sync asks', quiet, 60_000)
      run.stack.toy.faults.identityFailNextSends(1, { from: run.stack.number('alice') })
      const text = docs.alice.getText('text')
      text.insert(text.length, 'refused once. ')
      await until('the refusal reaches the page', () => alice.status().delivery.signal === 'refused')
      const refused = alice.status()
      expect(refused.pending).toBe(0) // nothing "waiting" forever in this browser
      expect(refused.delivery.refused).toBeGreaterThanOrEqual(1)
      expect(refused.delivery.reason).toMatch(/-4|identity|untrusted/i)
      expect(errors).toContainEqual({ code: 'CLIENT_REJECTED', remoteCode: 'SIDECAR_SEND_REJECTED' })
      // The next change goes through. It depends on the refused one, so Bob's replica sees a gap and
      // asks the group (gap repair): the refused content reaches him by sync, as the rule says.
      text.insert(text.length, 'and then sent. ')
      await until(
        'the page is back to "sent"',
        () => alice.status().weakest === 'group' && alice.status().delivery.signal === 'reachable',
      )
      expect(alice.status().delivery.refused).toBe(0)
      await until('Bob has the refused change too, by sync', () =>
        docs.bob.getText('text').toString().includes('refused once. and then sent. '),
      )
    },
  )
})
