/**
 * A demotion overtakes an acknowledged, unsent edit (issue #37 item 2, decisions/0032), end to end
 * on the toy with each sidecar in a process of its own. Bob's edit is saved by his sidecar while
 * Signal refuses his sends; Alice makes him a viewer; his sidecar learns it and keeps the edit as
 * not shared (never sent: Alice's sidecar drops nothing of his), rebuilds his replica from Alice's
 * answer (his pages reconnect to the group's text), names Alice as who made him a viewer (her
 * group update's sender, as his sidecar tells her apart), keeps the list across a restart, and
 * made an editor again his edits go through while the kept text stays readable.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { ALICE, BOB, call, startPeopleToy } from './docs-api.ts'
import { connect, envelope, isAck, metricValue, pageDoc, poll } from './harness.ts'
import {
  IO_FAILURE,
  libraryProcess,
  notShared,
  roleNote,
  roleOf,
  sharedWithBob,
  shownOf,
  textOfFreshPage,
  typed,
  VIEWER_DROPS,
} from './demotion-harness.ts'

describe('a demotion that overtakes an unsent edit', () => {
  it("keeps Bob's unsent edit as not shared, never sends it, rebuilds his replica from the group's, across a restart and a promotion", async () => {
    const toy = await startPeopleToy()
    const { alice, bob, docId } = await sharedWithBob(toy)
    const [pageA, pageB] = await Promise.all([connect(alice, docId), connect(bob, docId)])
    const [docA, docB] = await Promise.all([pageDoc(pageA), pageDoc(pageB)])

    // Alice's text reaches Bob's page.
    const hello = typed(docId, pageA, docA, 0, 'Hello')
    pageA.send(hello)
    const got = await pageB.waitFor((e) => e.kind === 'update' && e.messageId === hello.messageId)
    Y.applyUpdate(docB, got.payload)

    // Bob's sends fail (no network): his edit is saved by his sidecar, not sent.
    toy.faults.failNextSendsWith(100_000, IO_FAILURE, { from: BOB })
    const bobs = typed(docId, pageB, docB, 5, ' from Bob')
    pageB.send(bobs)
    await pageB.waitFor(isAck(bobs.messageId))

    // Alice makes Bob a viewer; his sidecar learns it and keeps the edit as not shared.
    const path = `/v1/docs/${docId}/members/${encodeURIComponent(BOB)}`
    expect((await call(alice, 'PATCH', path, { body: { role: 'viewer' } })).status).toBe(200)
    await pageB.waitFor(roleNote('viewer'))
    await poll(async () => (await notShared(bob, docId)).edits.length > 0, 'the edit listed as not shared')
    // Named by who made the change, as Bob's sidecar tells Alice apart everywhere; never her number.
    const alicesName = await shownOf(bob, docId, ALICE)
    expect(alicesName).toMatch(/Alice/)
    await poll(async () => (await notShared(bob, docId)).demotion?.by !== undefined, 'the demotion named')
    const listed = await notShared(bob, docId)
    expect(listed.demotion).toEqual({ role: 'viewer', at: expect.any(Number), by: alicesName })
    expect(listed.edits).toEqual([
      expect.objectContaining({ reason: 'unsent', text: ' from Bob', role: 'viewer', by: alicesName }),
    ])
    expect(JSON.stringify(listed)).not.toContain(ALICE)

    // Signal takes Bob's sends again: the edit is never sent (Alice's sidecar drops nothing of
    // his), and his replica rejoins Alice's state from her answer; his page is disconnected.
    toy.faults.reset()
    await poll(
      async () => (await notShared(bob, docId)).rejoinedAt !== undefined,
      "Bob's replica rebuilt from the group's",
    )
    await pageB.closed
    expect(await textOfFreshPage(bob, docId)).toBe('Hello')
    expect(await textOfFreshPage(alice, docId)).toBe('Hello')
    expect(await metricValue(alice.url, VIEWER_DROPS)).toBe(0)
    expect(pageA.received.some((e) => e.messageId === bobs.messageId)).toBe(false)
    const settled = await notShared(bob, docId)
    expect(settled).toMatchObject({ rejoinPending: false, edits: [{ reason: 'unsent', text: ' from Bob' }] })

    // A restart keeps the list, and the edit is still never sent.
    bob.child.child.kill('SIGKILL')
    await bob.child.exited
    const bob2 = await libraryProcess(bob.env)
    await poll(async () => (await roleOf(bob2, docId, BOB)) === 'viewer', 'Bob a viewer after the restart')
    expect((await notShared(bob2, docId)).edits).toEqual(settled.edits)
    expect((await notShared(bob2, docId)).demotion?.by).toBe(alicesName)
    expect(await textOfFreshPage(bob2, docId)).toBe('Hello')

    // Made an editor again: the kept text stays readable, his new edit reaches Alice, the old one does not.
    expect((await call(alice, 'PATCH', path, { body: { role: 'editor' } })).status).toBe(200)
    const pageB2 = await connect(bob2, docId)
    await pageB2.waitFor(roleNote('editor'))
    const docB2 = await pageDoc(pageB2)
    const ask = envelope(docId, pageB2.senderId, Y.encodeStateVector(docB2), 'sync-request')
    pageB2.send(ask)
    Y.applyUpdate(docB2, (await pageB2.waitFor((e) => e.kind === 'sync-response')).payload)
    const again = typed(docId, pageB2, docB2, 5, ' again')
    pageB2.send(again)
    await pageA.waitFor((e) => e.kind === 'update' && e.messageId === again.messageId)
    await poll(async () => (await textOfFreshPage(alice, docId)) === 'Hello again', "Bob's new edit at Alice's")
    expect((await notShared(bob2, docId)).edits).toEqual(settled.edits)
    expect((await notShared(bob2, docId)).demotion).toBeUndefined()
    expect(await metricValue(alice.url, VIEWER_DROPS)).toBe(0)
  }, 90_000)

  it('made a viewer while his sidecar was down: the restart learns it and names Alice', async () => {
    const toy = await startPeopleToy()
    const { alice, bob, docId } = await sharedWithBob(toy)
    const pageB = await connect(bob, docId)
    await pageB.waitFor(roleNote('editor'))
    // The role his sidecar was listed in is kept beside the store (written one turn after the listing).
    const file = join(bob.env['E2E_COL_DATA_DIR'] ?? '', 'not-shared.json')
    await poll(async () => {
      try {
        return (
          (JSON.parse(readFileSync(file, 'utf8')) as { roles?: Record<string, string> }).roles?.[docId] === 'editor'
        )
      } catch {
        return false
      }
    }, 'the role kept')
    bob.child.child.kill('SIGKILL')
    await bob.child.exited

    const path = `/v1/docs/${docId}/members/${encodeURIComponent(BOB)}`
    expect((await call(alice, 'PATCH', path, { body: { role: 'viewer' } })).status).toBe(200)
    const bob2 = await libraryProcess(bob.env)
    const pageB2 = await connect(bob2, docId)
    await pageB2.waitFor(roleNote('viewer'))
    const alicesName = await shownOf(bob2, docId, ALICE)
    expect(alicesName).toMatch(/Alice/)
    await poll(async () => (await notShared(bob2, docId)).demotion?.by === alicesName, 'the demotion named')
    expect((await notShared(bob2, docId)).demotion).toEqual({ role: 'viewer', at: expect.any(Number), by: alicesName })
    expect((await notShared(bob2, docId)).edits).toEqual([])
  }, 90_000)
})
