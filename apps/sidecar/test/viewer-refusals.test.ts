/**
 * What a viewer is told when they try what only editors may, end to end on the toy with three
 * sidecars: a rename or a share is 403 `DOCS_NOT_EDITOR`, found before Signal is asked, and never
 * "this computer is no longer linked" (Signal's own 403 to a group change says "not permitted", not
 * "unlinked"); a Restore or an Undo is 403 `HISTORY_NOT_EDITOR` and adds no version.
 */
import { describe, expect, it } from 'vitest'
import type { RunningSidecar } from '../src/index.ts'
import {
  ALICE,
  BOB,
  CAROL,
  call,
  failNextCalls,
  labelsListed,
  librarySidecar,
  shareAndAccept,
  startPeopleToy,
} from './docs-api.ts'
import { poll } from './harness.ts'
import { pageOn } from './ybrowser.ts'

const QUICK = { E2E_COL_HISTORY_QUIET_MS: '150', E2E_COL_MEMBERS_REFRESH_MS: '1000' }
const errorOf = (r: { status: number; json: { error?: { code: string } } }) => [r.status, r.json.error?.code]

type Person = { number: string; role?: string }
const roleOf = async (s: RunningSidecar, docId: string, number: string): Promise<string | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as { docId: string; members: Person[] }[])
    .find((d) => d.docId === docId)
    ?.members.find((m) => m.number === number)?.role

/** The sidecar says it is linked: /healthz and the document list carry no "unlinked" notice. */
async function expectLinked(s: RunningSidecar): Promise<void> {
  const res = await fetch(`${s.url}/healthz`)
  expect([res.status, ((await res.json()) as { account: unknown }).account]).toEqual([200, { linked: true }])
  expect((await call(s, 'GET', '/v1/docs')).json.notice).toBeUndefined()
}

/** Alice shares "Trip plan" with Bob (an editor) and Carol (a viewer); both accept. */
async function shared() {
  const toy = await startPeopleToy()
  const [alice, bob, carol] = await Promise.all([
    librarySidecar(toy, ALICE, QUICK),
    librarySidecar(toy, BOB, QUICK),
    librarySidecar(toy, CAROL, QUICK),
  ])
  const { docId, groupId } = await shareAndAccept(
    alice,
    { title: 'Trip plan', members: [BOB, { number: CAROL, role: 'viewer' }] },
    [bob, carol],
  )
  await poll(async () => (await roleOf(carol, docId, CAROL)) === 'viewer', "Carol's sidecar sees her role")
  await labelsListed(toy, groupId, {
    [ALICE]: 'editor',
    [BOB]: 'editor',
    [CAROL]: 'viewer',
  })
  return { toy, alice, bob, carol, docId }
}

describe('what only editors may do', () => {
  it("a viewer's rename and share: 403 DOCS_NOT_EDITOR before Signal is asked; Signal's 403 is not an unlinked computer", async () => {
    const { toy, alice, carol, docId } = await shared()
    // The next updateGroup anyone asks the toy for fails with this marker: whoever asks first meets it.
    await failNextCalls(toy, 'updateGroup', 1, { code: -1, message: 'marker: asked' })
    const rename = await call(carol, 'PATCH', `/v1/docs/${docId}`, { body: { title: 'Carol was here' } })
    expect(errorOf(rename)).toEqual([403, 'DOCS_NOT_EDITOR'])
    expect(rename.json.error.message).toBe('you can view this document; only its editors rename it')
    const share = await call(carol, 'POST', `/v1/docs/${docId}/members`, { body: { add: ['+15555550177'] } })
    expect(errorOf(share)).toEqual([403, 'DOCS_NOT_EDITOR'])
    // Carol's sidecar asked nothing: the marker is still there for Alice's rename.
    const marked = await call(alice, 'PATCH', `/v1/docs/${docId}`, { body: { title: 'Trip' } })
    expect(errorOf(marked)).toEqual([502, 'DOCS_DAEMON_FAILED'])
    expect(marked.json.error.message).toContain('marker: asked')
    await expectLinked(carol)

    // Signal refuses a change the listing allowed (a role changed in between): what Signal says then.
    await failNextCalls(toy, 'updateGroup', 1, {
      code: -32603,
      message: 'Failed to send message: [403] Authorization failed! (AuthorizationFailedException)',
    })
    const refused = await call(alice, 'PATCH', `/v1/docs/${docId}`, { body: { title: 'Trip' } })
    expect(errorOf(refused)).toEqual([403, 'DOCS_NOT_EDITOR'])
    expect(refused.json.error.message).toMatch(/^Signal refused to rename the group: only the document's editors may/)
    await expectLinked(alice)
    // The title is unchanged everywhere, and an allowed rename still works.
    const renamed = await call(alice, 'PATCH', `/v1/docs/${docId}`, { body: { title: 'Trip' } })
    expect([renamed.status, renamed.json.title]).toEqual([200, 'Trip'])
  }, 60_000)

  it("a viewer's Restore and Undo: 403 HISTORY_NOT_EDITOR, no version added, the document unchanged", async () => {
    const { alice, carol, docId } = await shared()
    const page = await pageOn(docId, alice.url)
    page.edit('Lisbon, then Porto')
    type Listed = { id: string; chars?: number; reason: string; authors: { number: string }[] }
    const versions = async (): Promise<Listed[]> =>
      (await call(carol, 'GET', `/v1/docs/${docId}/versions`)).json.versions as Listed[]
    await poll(async () => (await versions()).some((v) => v.chars === 18), "a version on Carol's sidecar")
    const before = await versions()
    const first = before[before.length - 1] as Listed

    const restore = await call(carol, 'POST', `/v1/docs/${docId}/versions/${first.id}/restore`, { body: {} })
    expect(errorOf(restore)).toEqual([403, 'HISTORY_NOT_EDITOR'])
    const revert = await call(carol, 'POST', `/v1/docs/${docId}/revert`, { body: { author: ALICE, since: 0 } })
    expect(errorOf(revert)).toEqual([403, 'HISTORY_NOT_EDITOR'])
    // Other versions may settle meanwhile (arrivals are merged into spells); none is the refused
    // request's: no restore, no undo, nothing written by Carol.
    const added = (await versions()).filter((v) => !before.some((b) => b.id === v.id))
    expect(added.filter((v) => v.reason === 'restore' || v.reason === 'revert')).toEqual([])
    expect(added.filter((v) => v.authors.some((a) => a.number === CAROL))).toEqual([])
    const bytes = await fetch(`${carol.url}/v1/docs/${docId}/versions/${before[0]?.id ?? ''}`)
    expect(bytes.status).toBe(200)
  }, 60_000)
})
