/**
 * Accepting an invitation is atomic (issue: a removal 750–1,200 ms into the accept left a document
 * served to someone no longer in the group): the document is served only when a listing asked
 * after joining has this account in it, and a removal that lands while the accept runs ends it
 * with `DOCS_REMOVED_WHILE_ACCEPTING`, nothing served or stored. The removal is made by Alice on
 * the toy at the exact step the test names, through a backend that wraps Bob's real one.
 */
import { createHttpSignalBackend } from '@e2e-col/signal-cli'
import { describe, expect, it } from 'vitest'
import { ALICE, BOB, call, librarySidecar, libraryEnv, rpc, startPeopleToy } from './docs-api.ts'
import { connect, poll, sidecar } from './harness.ts'

type Step = 'after-join' | 'after-fresh-listing'

/** Alice creates a document with Bob; Bob's accept is interrupted by Alice removing him at `step`. */
async function acceptWhileRemoved(step: Step) {
  const toy = await startPeopleToy()
  const alice = await librarySidecar(toy, ALICE)
  const inner = createHttpSignalBackend({ url: toy.url, account: BOB, timeoutMs: 5000, streamIdleMs: 60_000 })
  let groupId = ''
  let armed = false
  const removeBob = async () => {
    armed = false
    await rpc(toy.url, 'updateGroup', { account: ALICE, groupId, removeMembers: [BOB] })
  }
  const backend = {
    ...inner,
    acceptGroupRequest: async (id: string) => {
      await inner.acceptGroupRequest(id)
      if (armed && step === 'after-join') await removeBob()
    },
    listGroups: async (id?: string) => {
      const listing = await inner.listGroups(id)
      if (armed && step === 'after-fresh-listing' && id === groupId) await removeBob()
      return listing
    },
  }
  const bob = await sidecar(libraryEnv(toy, BOB), { backend })
  const created = await call(alice, 'POST', '/v1/docs', { body: { title: 'Plan', members: [BOB] } })
  const docId = (created.json as { docId: string }).docId
  groupId = (created.json as { groupId: string }).groupId
  await poll(async () => (await call(bob, 'GET', '/v1/invites')).json.invites.length === 1, "Bob's invitation")
  armed = true
  const accepted = await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })
  return { toy, alice, bob, docId, groupId, accepted, wasRemoved: () => !armed }
}

describe('accepting while being removed', () => {
  it.each<Step>(['after-join', 'after-fresh-listing'])(
    'a removal %s ends the accept with a 409 and nothing served or stored',
    async (step) => {
      const r = await acceptWhileRemoved(step)
      expect(r.wasRemoved()).toBe(true)
      expect([r.accepted.status, r.accepted.json.error?.code]).toEqual([409, 'DOCS_REMOVED_WHILE_ACCEPTING'])
      expect((await call(r.bob, 'GET', '/v1/docs')).json.documents).toEqual([])
      await expect(connect(r.bob, r.docId)).rejects.toThrow(/404/)
      // Nothing is offered again either: Bob is no longer in the group.
      expect((await call(r.bob, 'GET', '/v1/invites')).json.invites).toEqual([])
    },
    30_000,
  )
})
