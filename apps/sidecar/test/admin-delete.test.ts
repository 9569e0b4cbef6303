/**
 * Admin delete of refused updates (decision 0037): a viewer's update, sent straight to the group
 * past its own sidecar, is dropped by the owner's sidecar, which deletes the Signal message from
 * the group's chat history (`sendAdminDelete`, signal-cli 0.14.0+) naming its author and sent
 * timestamp; at most RETRACT_LIMITS.perMemberPerMinute per member in a minute. A daemon before
 * 0.14.0 is asked nothing. The owner's sidecar runs in its own process; Carol is a hostile member
 * speaking to the toy directly.
 */
import { encodeBody, encodeEnvelope } from '@e2e-col/protocol'
import type { ToySignal } from '@e2e-col/toy-signal'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { RETRACT_LIMITS } from '../src/retract/retractions.ts'
import { spawnSidecar } from './child-sidecar.ts'
import { ALICE, CAROL, call, libraryEnv, rpc, startPeopleToy } from './docs-api.ts'
import { envelope, metricValue, poll } from './harness.ts'

const VIEWER_DROPS = 'e2e_col_received_dropped_total{reason="viewer-content"}'
const retracted = (outcome: string) => `e2e_col_retractions_total{outcome="${outcome}"}`

/** Alice's sidecar (its own process) shares a document with Carol as a viewer; Carol accepts by hand. */
async function withViewer(toy: ToySignal) {
  const child = spawnSidecar(libraryEnv(toy, ALICE, { E2E_COL_MEMBERS_REFRESH_MS: '1000' }))
  let log = ''
  child.child.stdout?.on('data', (d: Buffer) => (log += d.toString()))
  const url = await child.ready
  const alice = { url, port: Number(new URL(url).port) }
  const created = await call(alice, 'POST', '/v1/docs', {
    body: { title: 'Plan', members: [{ number: CAROL, role: 'viewer' }] },
  })
  expect(created.status).toBe(201)
  const { docId, groupId } = created.json as { docId: string; groupId: string }
  // An invitee accepts with an empty change.
  await rpc(toy.url, 'updateGroup', { account: CAROL, groupId })
  return { alice, docId, groupId, log: () => log }
}

/** Carol sends a crafted update to the group as a hostile member would; its sent timestamp. */
async function craftedUpdate(toy: ToySignal, docId: string, groupId: string): Promise<number> {
  const crafted = envelope(docId, randomUUID(), 40)
  const sent = (await rpc(toy.url, 'send', {
    account: CAROL,
    groupId,
    message: encodeBody(encodeEnvelope(crafted)),
  })) as { timestamp: number }
  return sent.timestamp
}

const adminDeletes = (toy: ToySignal) => toy.sends().filter((s) => s.adminDelete !== undefined)

describe('admin delete of refused updates', () => {
  it("the owner's sidecar deletes a viewer's update from the chat history, at most the bound per minute", async () => {
    const toy = await startPeopleToy()
    const { alice, docId, groupId } = await withViewer(toy)
    // Alice's sidecar must know Carol as a member (and itself as an admin) before it judges her.
    await poll(async () => {
      const g = (await rpc(toy.url, 'listGroups', { account: ALICE, groupId }))[0] as { members: { number: string }[] }
      return g.members.some((m) => m.number === CAROL)
    }, 'Carol a member')
    // More than the bound, back to back (well inside a minute): the rest are dropped all the same, not deleted.
    const sent: number[] = []
    for (let i = 0; i < RETRACT_LIMITS.perMemberPerMinute + 3; i += 1)
      sent.push(await craftedUpdate(toy, docId, groupId))
    await poll(async () => (await metricValue(alice.url, VIEWER_DROPS)) >= sent.length, 'every update dropped')
    await poll(async () => (await metricValue(alice.url, retracted('over-limit'))) >= 3, 'the over-limit ones counted')
    await poll(async () => adminDeletes(toy).length >= RETRACT_LIMITS.perMemberPerMinute, 'the admin deletes')
    expect(adminDeletes(toy)).toHaveLength(RETRACT_LIMITS.perMemberPerMinute)
    // Each names Carol and the sent timestamp of one of her first updates (the deletes go out
    // independently, so the daemon may take them in any order).
    const deletes = adminDeletes(toy).map((s) => ({ account: s.account, groupId: s.groupId, ...s.adminDelete }))
    deletes.sort((a, b) => (a.targetSentTimestamp ?? 0) - (b.targetSentTimestamp ?? 0))
    expect(deletes).toEqual(
      sent.slice(0, RETRACT_LIMITS.perMemberPerMinute).map((t) => ({
        account: ALICE,
        groupId,
        targetAuthor: CAROL,
        targetSentTimestamp: t,
      })),
    )
    expect(await metricValue(alice.url, retracted('over-limit'))).toBe(3)
  }, 90_000)

  it('a daemon before 0.14.0 is asked for no admin delete; the sidecar says so once', async () => {
    const toy = await startPeopleToy({ signalCliVersion: '0.13.19' })
    const { alice, docId, groupId, log } = await withViewer(toy)
    await poll(async () => {
      const g = (await rpc(toy.url, 'listGroups', { account: ALICE, groupId }))[0] as { members: { number: string }[] }
      return g.members.some((m) => m.number === CAROL)
    }, 'Carol a member')
    await craftedUpdate(toy, docId, groupId)
    await craftedUpdate(toy, docId, groupId)
    await poll(async () => (await metricValue(alice.url, VIEWER_DROPS)) >= 2, 'both dropped')
    await poll(async () => log().includes('predates admin delete'), 'the one log line')
    expect(adminDeletes(toy)).toEqual([])
    expect(log().split('predates admin delete').length - 1).toBe(1)
  }, 90_000)
})
