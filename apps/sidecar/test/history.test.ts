/**
 * Document history end to end on the toy daemon with two sidecars and pages: Alice writes, Bob's
 * page deletes everything, a version from before is read and restored through the local API and
 * both pages show the text again; a restart keeps the versions; undoing Bob's changes since a
 * moment keeps Alice's interleaved ones; after a restore, undoing Bob (previewed first, nothing
 * changed by the preview) leaves exactly the restored text; and the API's errors.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { RunningSidecar } from '../src/index.ts'
import { parseDocsArgs, runDocsCommand } from '../src/cli/docs-cli.ts'
import { ALICE, BOB, call, librarySidecar, startPeopleToy } from './docs-api.ts'
import { A, B, baseEnv, poll, sidecar, startToy } from './harness.ts'
import { pageOn } from './ybrowser.ts'

const code = (r: { json: { error: { code: string } } }) => r.json.error.code

interface Listed {
  id: string
  at: number
  reason: string
  authors: { number: string; name: string | null; you: boolean }[]
  restoredFrom?: number
  chars?: number
}

const QUICK = { E2E_COL_HISTORY_QUIET_MS: '150' }

async function versions(s: RunningSidecar, docId: string, query = ''): Promise<Listed[]> {
  const r = await call(s, 'GET', `/v1/docs/${docId}/versions${query}`)
  expect(r.status).toBe(200)
  return r.json.versions as Listed[]
}

async function versionBytes(s: RunningSidecar, docId: string, id: string): Promise<Uint8Array> {
  const res = await fetch(`http://127.0.0.1:${s.port}/v1/docs/${docId}/versions/${id}`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('application/octet-stream')
  return new Uint8Array(await res.arrayBuffer())
}

async function twoSidecars() {
  const toy = await startToy()
  const docId = randomUUID()
  const envA = baseEnv(toy, A, docId, QUICK)
  const envB = baseEnv(toy, B, docId, QUICK)
  const [a, b] = await Promise.all([sidecar(envA), sidecar(envB)])
  return { toy, docId, envA, a, b }
}

describe('document history through the local API', () => {
  it('Bob deletes everything; Alice restores the version before; both pages show the text; a restart keeps the versions', async () => {
    const { docId, envA, a, b } = await twoSidecars()
    const alice = await pageOn(docId, a.url)
    const bob = await pageOn(docId, b.url)
    const text = 'Trip plan: Lisbon, then Porto'
    alice.edit(text)
    await bob.until(() => bob.text === text)
    await poll(async () => (await versions(a, docId)).some((v) => v.chars === text.length), 'a version of the text')

    bob.doc.getText('t').delete(0, text.length)
    await alice.until(() => alice.text === '')
    await poll(async () => (await versions(a, docId))[0]?.chars === 0, 'a version after the deletion')

    const listed = await versions(a, docId)
    const before = listed.find((v) => v.chars === text.length) as Listed
    // These sidecars have fixed documents and no contacts to name anyone from.
    expect(before.authors).toEqual([{ number: A, name: null, you: true }])
    expect(listed[0]?.authors).toEqual([{ number: B, name: null, you: false }])
    // Newest first, and the page before the newest holds the older ones.
    expect(listed.every((v, i) => i === 0 || v.at <= (listed[i - 1]?.at ?? 0))).toBe(true)
    expect(await versions(a, docId, `?before=${listed[0]?.at}&limit=1`)).toEqual(
      listed.filter((v) => v.at < (listed[0]?.at ?? 0)).slice(0, 1),
    )

    const shown = new Y.Doc()
    Y.applyUpdate(shown, await versionBytes(a, docId, before.id))
    expect(shown.getText('t').toString()).toBe(text)

    const restored = await call(a, 'POST', `/v1/docs/${docId}/versions/${before.id}/restore`, { body: {} })
    expect(restored.status).toBe(200)
    await alice.until(() => alice.text === text)
    await bob.until(() => bob.text === text)
    const restoreId = restored.json.version as string
    expect((await versions(a, docId))[0]).toMatchObject({ id: restoreId, reason: 'restore', chars: text.length })

    await a.close()
    const again = await sidecar(envA)
    const kept = await versions(again, docId)
    expect(kept.map((v) => v.id)).toEqual(expect.arrayContaining([before.id, restoreId]))
    const afterRestart = new Y.Doc()
    Y.applyUpdate(afterRestart, await versionBytes(again, docId, restoreId))
    expect(afterRestart.getText('t').toString()).toBe(text)

    // The same through the CLI: the history names the versions; a restore by id answers the new one.
    const cli = { sidecar: again.url, json: false, target: docId, people: [] }
    const lines = (await runDocsCommand({ ...cli, action: 'history' })).trim().split('\n')
    // Your own changes as "you", a restore said; a version with no author and no text left out.
    expect(lines[0]).toMatch(
      new RegExp(`UTC  ·  you  ·  restored an earlier version  ·  ${text.length} characters  ·  ${restoreId}$`),
    )
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`UTC  ·  ${B.replace('+', '\\+')}  ·  (.+  ·  )?0 characters  ·  `)),
    )
    expect(lines.length).toBe(kept.filter((v) => v.authors.length > 0 || (v.chars ?? 0) > 0).length)
    expect(lines.join('\n')).not.toMatch(/no changes/)
    bob.doc.getText('t').insert(0, 'Bob was here. ')
    await poll(async () => (await versions(again, docId))[0]?.chars === text.length + 14, "Bob's line in a version")
    const byCli = JSON.parse(await runDocsCommand({ ...cli, json: true, action: 'restore', version: restoreId }))
    expect(byCli.version).toMatch(/^\d+$/)
    await bob.until(() => bob.text === text)
    const r = parseDocsArgs(['restore', docId, 'latest'], {})
    expect(r.kind === 'usage-error' && r.message).toContain('VERSION is a version id')
  }, 60_000)

  it("undoing Bob's changes since a moment removes his interleaved edits and keeps Alice's", async () => {
    const { docId, a, b } = await twoSidecars()
    const alice = await pageOn(docId, a.url)
    const bob = await pageOn(docId, b.url)
    alice.edit('Day 1: Lisbon.')
    await bob.until(() => bob.text === 'Day 1: Lisbon.')
    await new Promise((r) => setTimeout(r, 50))
    const since = Date.now()
    bob.doc.getText('t').insert(0, 'SPAM ')
    await alice.until(() => alice.text.startsWith('SPAM '))
    alice.edit(' Day 2: Porto.')
    await bob.until(() => bob.text.endsWith('Porto.'))
    bob.doc.getText('t').delete(5, 7) // "Day 1: " gone
    await alice.until(() => !alice.text.includes('Day 1: '))
    alice.doc.getText('t').insert(0, 'Plan: ')
    await bob.until(() => bob.text.startsWith('Plan: '))

    const reverted = await call(a, 'POST', `/v1/docs/${docId}/revert`, { body: { author: B, since } })
    expect(reverted.status).toBe(200)
    expect(reverted.json.version).toMatch(/^\d+$/)
    const want = 'Plan: Day 1: Lisbon. Day 2: Porto.'
    await alice.until(() => alice.text === want)
    await bob.until(() => bob.text === want)
    // The undo's version says whose changes it undid.
    const undo = (await versions(a, docId)).find((v) => v.id === reverted.json.version)
    expect(undo).toMatchObject({ reason: 'revert', undid: { number: B, name: null, you: false } })
    // Nothing of Bob's left to undo since then: no change, no version.
    const none = await call(a, 'POST', `/v1/docs/${docId}/revert`, { body: { author: '+33600000009', since } })
    expect(none.json).toEqual({ version: null })
  }, 60_000)

  it("after Alice restores her text over Bob's wipe: the restore names its version, an undo of Bob is previewed unchanged and leaves exactly her text", async () => {
    const { docId, a, b } = await twoSidecars()
    const alice = await pageOn(docId, a.url)
    const bob = await pageOn(docId, b.url)
    const text = 'Alice: book the hotel in Lisbon.'
    alice.edit(text)
    await bob.until(() => bob.text === text)
    await poll(async () => (await versions(a, docId)).some((v) => v.chars === text.length), 'her version')
    const hers = (await versions(a, docId)).find((v) => v.chars === text.length) as Listed
    const since = hers.at + 1
    bob.doc.getText('t').delete(0, text.length)
    bob.doc.getText('t').insert(0, 'Bob was here.')
    await alice.until(() => alice.text === 'Bob was here.')
    const restored = await call(a, 'POST', `/v1/docs/${docId}/versions/${hers.id}/restore`, { body: {} })
    expect(restored.status).toBe(200)
    await bob.until(() => bob.text === text)
    const restore = (await versions(a, docId)).find((v) => v.id === restored.json.version)
    expect(restore).toMatchObject({ reason: 'restore', restoredFrom: hers.at })
    bob.edit(' Bob again.')
    await alice.until(() => alice.text === `${text} Bob again.`)
    const whole = text.length + ' Bob again.'.length
    await poll(async () => (await versions(a, docId))[0]?.chars === whole, 'his version after the restore')

    // The preview is the undo's result, and nothing changes for it.
    const before = await versions(a, docId)
    const res = await fetch(`http://127.0.0.1:${a.port}/v1/docs/${docId}/revert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ author: B, since, preview: true }),
    })
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/octet-stream'])
    const shown = new Y.Doc()
    Y.applyUpdate(shown, new Uint8Array(await res.arrayBuffer()))
    expect(shown.getText('t').toString()).toBe(text)
    expect(alice.text).toBe(`${text} Bob again.`)
    expect(await versions(a, docId)).toEqual(before)

    const undone = await call(a, 'POST', `/v1/docs/${docId}/revert`, { body: { author: B, since } })
    expect(undone.status).toBe(200)
    await alice.until(() => alice.text === text)
    await bob.until(() => bob.text === text)
  }, 60_000)

  it("every member knows a restore: on Bob's sidecar, undoing Bob's changes from before Alice's restore leaves exactly her text on both, and both name her letters restored", async () => {
    const { docId, a, b } = await twoSidecars()
    const alice = await pageOn(docId, a.url)
    const bob = await pageOn(docId, b.url)
    const text = 'Alice: book the hotel in Lisbon.\nAlice: rent a car in Porto.'
    alice.edit(text)
    await bob.until(() => bob.text === text)
    await poll(
      async () => (await versions(a, docId)).some((v) => v.chars === text.length),
      'her version on her sidecar',
    )
    await poll(
      async () => (await versions(b, docId)).some((v) => v.chars === text.length),
      'her version on his sidecar',
    )
    const hers = (await versions(a, docId)).find((v) => v.chars === text.length) as Listed
    const since = Math.max(hers.at, ((await versions(b, docId)).find((v) => v.chars === text.length) as Listed).at) + 1
    bob.doc.getText('t').delete(0, text.length)
    bob.doc.getText('t').insert(0, 'Bob was here.')
    await alice.until(() => alice.text === 'Bob was here.')
    const restored = await call(a, 'POST', `/v1/docs/${docId}/versions/${hers.id}/restore`, { body: {} })
    expect(restored.status).toBe(200)
    await bob.until(() => bob.text === text)
    bob.edit(' Bob again.')
    await alice.until(() => alice.text === `${text} Bob again.`)
    await poll(async () => (await versions(b, docId))[0]?.chars === text.length + 11, 'his version after the restore')

    // Bob's sidecar only received the restore; its record in the document tells his undo what it re-created.
    // His sidecar lists the restore it received as one, naming the version's time.
    expect((await versions(b, docId)).find((v) => v.reason === 'restore')).toMatchObject({ restoredFrom: hers.at })
    const undone = await call(b, 'POST', `/v1/docs/${docId}/revert`, { body: { author: B, since } })
    expect(undone.status).toBe(200)
    await bob.until(() => bob.text === text)
    await alice.until(() => alice.text === text)
    expect([alice.text, bob.text]).toEqual([text, text])

    // "Who wrote this" on both sidecars: the restore's client id names the version it restored.
    for (const s of [a, b]) {
      const authors = (await call(s, 'GET', `/v1/docs/${docId}/authors`)).json.authors as Record<
        string,
        { restoredFrom?: number; number?: string | null; relayedBy?: { number: string | null } }
      >
      const restores = Object.values(authors).filter((v) => v.restoredFrom !== undefined)
      expect(restores).toHaveLength(1)
      expect(restores[0]?.restoredFrom).toBe(hers.at)
      expect(restores[0]?.number ?? restores[0]?.relayedBy?.number).toBe(A)
    }
  }, 60_000)

  it('answers unknown documents and versions 404, bad input 400, a wrong method 405, with stable codes', async () => {
    const { docId, a } = await twoSidecars()
    const page = await pageOn(docId, a.url)
    page.edit('x')
    const unknownDoc = await call(a, 'GET', `/v1/docs/${randomUUID()}/versions`)
    expect([unknownDoc.status, code(unknownDoc)]).toEqual([404, 'HISTORY_UNKNOWN_DOCUMENT'])
    const unknownVersion = await call(a, 'GET', `/v1/docs/${docId}/versions/999999`)
    expect([unknownVersion.status, code(unknownVersion)]).toEqual([404, 'HISTORY_UNKNOWN_VERSION'])
    const restoreUnknown = await call(a, 'POST', `/v1/docs/${docId}/versions/999999/restore`, { body: {} })
    expect([restoreUnknown.status, code(restoreUnknown)]).toEqual([404, 'HISTORY_UNKNOWN_VERSION'])
    const badLimit = await call(a, 'GET', `/v1/docs/${docId}/versions?limit=100000`)
    expect([badLimit.status, code(badLimit)]).toEqual([400, 'HISTORY_BAD_REQUEST'])
    const badRevert = await call(a, 'POST', `/v1/docs/${docId}/revert`, { body: { author: B, since: 'yesterday' } })
    expect([badRevert.status, code(badRevert)]).toEqual([400, 'HISTORY_BAD_REQUEST'])
    const tooOld = await call(a, 'POST', `/v1/docs/${docId}/revert`, { body: { author: B, since: 0 } })
    expect([tooOld.status, code(tooOld)]).toEqual([400, 'HISTORY_TOO_OLD'])
    const notJson = await call(a, 'POST', `/v1/docs/${docId}/revert`, { raw: 'author=x' })
    expect(notJson.status).toBe(400)
    const wrongMethod = await call(a, 'POST', `/v1/docs/${docId}/versions`, { body: {} })
    expect([wrongMethod.status, code(wrongMethod)]).toEqual([405, 'HISTORY_METHOD_NOT_ALLOWED'])
    const foreign = await call(a, 'GET', `/v1/docs/${docId}/versions`, { headers: { origin: 'https://evil.example' } })
    expect(foreign.status).toBe(403)
    const rebound = await call(a, 'GET', `/v1/docs/${docId}/versions`, { headers: { host: 'evil.example' } })
    expect(rebound.status).toBe(421)
  }, 30_000)

  it("names each version's people as every page does (strangers told apart), this account marked as you", async () => {
    const toy = await startPeopleToy()
    const a = await librarySidecar(toy, ALICE, QUICK)
    const b = await librarySidecar(toy, BOB, QUICK)
    const { docId } = (await call(a, 'POST', '/v1/docs', { body: { title: 'Trip', members: [BOB] } })).json
    expect((await call(b, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
    const alice = await pageOn(docId, a.url)
    const bob = await pageOn(docId, b.url)
    bob.edit('Bob: Lisbon.')
    await alice.until(() => alice.text === 'Bob: Lisbon.')
    await poll(async () => (await versions(a, docId)).some((v) => v.authors.length > 0), "a version with Bob's change")
    alice.edit(' Alice: Porto.')
    await poll(
      async () => (await versions(a, docId)).some((v) => v.authors.some((p) => p.you)),
      "a version with Alice's change",
    )
    const people = (await versions(a, docId)).flatMap((v) => v.authors)
    // Named as everywhere (people/told-apart.ts): Bob is not in Alice's contacts here, so he is
    // told apart from any contact named Bob; her own versions are marked `you`, not named.
    expect(people).toContainEqual({ number: BOB, name: 'Bob (not in your contacts, …0102)', you: false })
    expect(people).toContainEqual({ number: ALICE, name: null, you: true })
  }, 60_000)

  it('answers 409 for a document this person was removed from (kept, not served)', async () => {
    const toy = await startPeopleToy()
    const alice = await librarySidecar(toy, ALICE)
    const bob = await librarySidecar(toy, BOB)
    const { docId } = (await call(alice, 'POST', '/v1/docs', { body: { title: 'Trip', members: [BOB] } })).json
    expect((await call(bob, 'POST', `/v1/invites/${docId}/accept`, { body: {} })).status).toBe(200)
    expect((await call(bob, 'GET', `/v1/docs/${docId}/versions`)).status).toBe(200)
    await call(alice, 'POST', `/v1/docs/${docId}/members`, { body: { remove: [BOB] } })
    await poll(
      async () => (await call(bob, 'GET', '/v1/docs')).json.documents[0]?.state === 'removed',
      "Bob's document to be marked removed",
    )
    const left = await call(bob, 'GET', `/v1/docs/${docId}/versions`)
    expect([left.status, code(left)]).toEqual([409, 'HISTORY_DOCUMENT_LEFT'])
    const restore = await call(bob, 'POST', `/v1/docs/${docId}/versions/1/restore`, { body: {} })
    expect([restore.status, code(restore)]).toEqual([409, 'HISTORY_DOCUMENT_LEFT'])
  }, 60_000)
})
