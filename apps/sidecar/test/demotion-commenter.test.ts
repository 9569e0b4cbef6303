/**
 * An editor made a commenter with an acknowledged, unsent edit (issue #37, decisions/0032 amended),
 * end to end on the toy with each sidecar in a process of its own. Every sidecar drops a
 * commenter's update that is not review entries alone, so the same rule as for a viewer applies:
 * Bob's unsent text edit is kept as not shared ("you were made a commenter", Alice named), never
 * sent, and his replica rejoins the group's state, even when his sidecar is SIGKILLed right after
 * it learned the change, before any editor had answered.
 */
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { ALICE, BOB, call, startPeopleToy } from './docs-api.ts'
import { connect, isAck, metricValue, pageDoc, poll } from './harness.ts'
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
} from './demotion-harness.ts'

const COMMENTER_DROPS = 'e2e_col_received_dropped_total{reason="commenter-content"}'

describe('an editor made a commenter before an edit was sent', () => {
  it("keeps Bob's unsent text edit as not shared, names Alice, never sends it, and rejoins after a SIGKILL", async () => {
    const toy = await startPeopleToy()
    const { alice, bob, docId } = await sharedWithBob(toy)
    const [pageA, pageB] = await Promise.all([connect(alice, docId), connect(bob, docId)])
    const [docA, docB] = await Promise.all([pageDoc(pageA), pageDoc(pageB)])
    const hello = typed(docId, pageA, docA, 0, 'Hello')
    pageA.send(hello)
    Y.applyUpdate(docB, (await pageB.waitFor((e) => e.kind === 'update' && e.messageId === hello.messageId)).payload)

    // Bob's sends fail: his edit is saved by his sidecar, not sent.
    toy.faults.failNextSendsWith(100_000, IO_FAILURE, { from: BOB })
    const bobs = typed(docId, pageB, docB, 5, ' from Bob')
    pageB.send(bobs)
    await pageB.waitFor(isAck(bobs.messageId))

    // Alice makes Bob a commenter; his sidecar keeps the text edit as not shared, naming her.
    const path = `/v1/docs/${docId}/members/${encodeURIComponent(BOB)}`
    expect((await call(alice, 'PATCH', path, { body: { role: 'commenter' } })).status).toBe(200)
    await pageB.waitFor(roleNote('commenter'))
    const alicesName = await shownOf(bob, docId, ALICE)
    expect(alicesName).toMatch(/Alice/)
    await poll(async () => (await notShared(bob, docId)).demotion?.by !== undefined, 'the demotion named')
    const listed = await notShared(bob, docId)
    expect(listed).toMatchObject({
      demotion: { role: 'commenter', by: alicesName },
      edits: [{ reason: 'unsent', text: ' from Bob', role: 'commenter', by: alicesName }],
      rejoinPending: true,
    })

    // SIGKILL before any editor answered (Signal still refuses his sends); the restart resumes it.
    bob.child.child.kill('SIGKILL')
    await bob.child.exited
    const bob2 = await libraryProcess(bob.env)
    await poll(async () => (await roleOf(bob2, docId, BOB)) === 'commenter', 'Bob a commenter after the restart')
    expect((await notShared(bob2, docId)).edits).toEqual(listed.edits)
    toy.faults.reset()
    await poll(async () => (await notShared(bob2, docId)).rejoinedAt !== undefined, "Bob's replica rebuilt")
    expect(await textOfFreshPage(bob2, docId)).toBe('Hello')
    expect(await textOfFreshPage(alice, docId)).toBe('Hello')
    expect(pageA.received.some((e) => e.messageId === bobs.messageId)).toBe(false)
    expect(await metricValue(alice.url, COMMENTER_DROPS)).toBe(0)
    expect(await notShared(bob2, docId)).toMatchObject({
      rejoinPending: false,
      demotion: { role: 'commenter', by: alicesName },
      edits: [{ reason: 'unsent', text: ' from Bob', role: 'commenter', by: alicesName }],
    })
  }, 90_000)
})
