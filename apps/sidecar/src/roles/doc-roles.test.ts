import type { GroupListing } from '@e2e-col/signal-cli'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { encodeEnvelope, type Envelope, type Kind } from '@e2e-col/protocol'
import { rolesIn } from './roles.ts'
import { createLogger } from '../ops/logger.ts'
import { createMetrics } from '../ops/metrics.ts'
import { createDocumentRoles } from './doc-roles.ts'
import { createGroupInbox, type GroupInboxParts } from '../document/group-inbox.ts'

const ALICE = { number: '+33600000001', uuid: '00000000-0000-4000-8000-000000000001' }
const CAROL = { number: '+33600000003', uuid: '00000000-0000-4000-8000-000000000003' }
const DOC = '11111111-1111-4111-8111-111111111111'
const listing: GroupListing[number] = {
  id: 'g',
  members: [ALICE, CAROL],
  admins: [ALICE],
  permissionEditDetails: 'ONLY_ADMINS',
}

function update(text: string): Uint8Array {
  const d = new Y.Doc()
  d.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(d)
}

/** A group inbox over a real Y.Doc replica and a role gate; the other parts only record calls. */
function inbox() {
  const metrics = createMetrics()
  const lines: string[] = []
  const logger = createLogger('warn', new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }))
  const roles = createDocumentRoles({ docId: DOC, replica: new Y.Doc(), metrics, logger })
  roles.set(rolesIn(listing, ALICE))
  const doc = new Y.Doc()
  const shown: Uint8Array[] = []
  const requests: Uint8Array[] = []
  const healthFrom: boolean[] = []
  const took: { value: 'taken' | 'deferred' } = { value: 'taken' }
  const peerAsks: Uint8Array[] = []
  const parts = {
    replica: { apply: (u: Uint8Array) => (Y.applyUpdate(doc, u), true) },
    sync: {
      groupSync: { onRequest: (sv: Uint8Array) => (requests.push(sv), took.value), onPeerResponse: () => {} },
      gapRepair: { onPeerState: () => {}, onPeerAsk: (sv: Uint8Array) => void peerAsks.push(sv), check: () => {} },
    },
    capabilities: { roster: { seen: () => {} }, onHealth: () => false },
    pages: { toAll: (f: Uint8Array) => shown.push(f) },
    store: { storing: <T>(fn: () => T) => fn() },
    mirror: { seen: () => {} },
    roles,
    metrics,
    // Authorship admits everything here: this file is about roles (it records who was told a viewer).
    authors: {
      admit: (_kind: Kind, payload: Uint8Array) => payload,
      health: (_from: unknown, _payload: Uint8Array, viewer: boolean) => void healthFrom.push(viewer),
      speaksFor: () => true,
    },
  } as unknown as GroupInboxParts
  const take = createGroupInbox(parts)
  const from = (who: typeof ALICE, kind: Kind, payload: Uint8Array) => {
    const env: Envelope = { kind, flags: 0, docId: DOC, senderId: DOC, messageId: 'ab'.repeat(16), seq: 0, payload }
    take(encodeEnvelope(env), env, who, who.uuid)
  }
  const dropped = async () =>
    (await metrics.registry.getSingleMetricAsString('e2e_col_received_dropped_total')).match(
      /reason="viewer-content"} (\d+)/,
    )?.[1] ?? '0'
  return { from, doc, shown, requests, lines, dropped, healthFrom, took, peerAsks }
}

describe("a viewer's envelopes from the group", () => {
  it.each(['update', 'sync-response', 'snapshot'] as const)(
    'a %s from a viewer is dropped and counted',
    async (kind) => {
      const t = inbox()
      t.from(CAROL, kind, update('forged'))
      expect(t.doc.getText('t').toString()).toBe('')
      expect(t.shown).toHaveLength(0)
      expect(await t.dropped()).toBe('1')
    },
  )

  it("an editor's update is applied and shown", async () => {
    const t = inbox()
    t.from(ALICE, 'update', update('hello'))
    expect(t.doc.getText('t').toString()).toBe('hello')
    expect(t.shown).toHaveLength(1)
    expect(await t.dropped()).toBe('0')
  })

  it("a viewer's sync request is still answered, and its presence and health still reach the pages", () => {
    const t = inbox()
    t.from(CAROL, 'sync-request', Y.encodeStateVector(new Y.Doc()))
    t.from(CAROL, 'awareness', new Uint8Array([0]))
    t.from(CAROL, 'health', new Uint8Array([0]))
    expect(t.requests).toHaveLength(1)
    expect(t.shown).toHaveLength(2)
    // Its announcement reaches the author gate as a viewer's: it binds nothing but its own ids.
    t.from(ALICE, 'health', new Uint8Array([0]))
    expect(t.healthFrom).toEqual([true, false])
  })

  it('the viewer is logged once however many envelopes it sends; every drop is counted', async () => {
    const t = inbox()
    for (let i = 0; i < 3; i++) t.from(CAROL, 'update', update(`x${i}`))
    expect(t.lines.filter((l) => l.includes('dropped content from a viewer'))).toHaveLength(1)
    expect(t.lines.join('')).not.toContain(CAROL.number)
    expect(await t.dropped()).toBe('3')
  })
})

describe("a member's request standing in for this replica's quiet ask", () => {
  const empty = Y.encodeStateVector(new Y.Doc())

  it("an editor's request answered now stands in; one deferred for its asker's bound does not", () => {
    const t = inbox()
    t.from(ALICE, 'sync-request', empty)
    expect(t.peerAsks).toHaveLength(1)
    t.took.value = 'deferred'
    t.from(ALICE, 'sync-request', empty)
    expect(t.requests).toHaveLength(2)
    expect(t.peerAsks).toHaveLength(1)
  })

  it("a viewer's request is answered but never hushes this replica's own ask", () => {
    const t = inbox()
    t.from(CAROL, 'sync-request', empty)
    expect(t.requests).toHaveLength(1)
    expect(t.peerAsks).toHaveLength(0)
  })
})
