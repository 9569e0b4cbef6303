/**
 * A hostile member (account C, posting through the daemon's own `send`) sends one crafted update
 * that deletes everything in the document. Every replica takes it (a member's change is a change),
 * and the document's history undoes it: `POST /v1/docs/<docId>/revert {author: C, since}` on A's
 * sidecar brings the text back on A's and B's pages, and A's edit made after the attack stays.
 */
import { encodeBody, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { A, B, C, envelopeOf, postAs, reader, sidecar, sidecarEnv, toyWithThree, waitFor, wsUrl } from './edge.ts'

/** The text a page holding every document envelope it received would show. */
function textOf(received: readonly Envelope[], own: Y.Doc): string {
  const doc = new Y.Doc()
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(own))
  for (const e of received) if (e.kind === 'update' || e.kind === 'sync-response') Y.applyUpdate(doc, e.payload)
  return doc.getText('t').toString()
}

/** Both A's later words and the deleted text are there. */
const whole = (t: string) => t.includes('Later: ') && t.includes('Meeting notes: budget approved')

describe("a hostile member's delete-all is undone from the history", () => {
  it("reverting C's changes since before the attack restores the text everywhere and keeps A's later edit", async () => {
    const toy = await toyWithThree()
    const docId = randomUUID()
    const quick = { E2E_COL_HISTORY_QUIET_MS: '100' }
    const sa = await sidecar(sidecarEnv(toy, A, docId, quick))
    const sb = await sidecar(sidecarEnv(toy, B, docId, quick))
    const atA = await reader(wsUrl(sa, docId))
    const atB = await reader(wsUrl(sb, docId))

    const page = new Y.Doc()
    const pageId = randomUUID()
    const sent: Uint8Array[] = []
    page.on('update', (u: Uint8Array) => sent.push(u))
    page.getText('t').insert(0, 'Meeting notes: budget approved')
    atA.ws.send(encodeEnvelope(envelopeOf(docId, pageId, sent.at(-1) as Uint8Array)))
    await waitFor("A's text at B", () => textOf(atB.received, new Y.Doc()) === 'Meeting notes: budget approved')
    const since = Date.now()

    // C's crafted update: every character A wrote, deleted, in one change.
    const attacker = new Y.Doc()
    Y.applyUpdate(attacker, Y.encodeStateAsUpdate(page))
    const before = Y.encodeStateVector(attacker)
    attacker.getText('t').delete(0, attacker.getText('t').length)
    const crafted = Y.encodeStateAsUpdate(attacker, before)
    await postAs(toy, C, encodeBody(encodeEnvelope(envelopeOf(docId, randomUUID(), crafted))))
    await waitFor('the deletion at B', () => textOf(atB.received, new Y.Doc()) === '')
    await waitFor('the deletion at A', () => textOf(atA.received, page) === '')

    // A writes on after the attack; the revert must keep it.
    Y.applyUpdate(page, crafted)
    page.getText('t').insert(0, 'Later: ')
    atA.ws.send(encodeEnvelope(envelopeOf(docId, pageId, sent.at(-1) as Uint8Array)))
    await waitFor("A's later edit at B", () => textOf(atB.received, new Y.Doc()) === 'Later: ')

    const res = await fetch(`${sa.url}/v1/docs/${docId}/revert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ author: C, since }),
    })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { version: string | null }).version).toMatch(/^\d+$/)
    // The deleted text comes back where it stood; A's later words stay (Yjs places both).
    await waitFor('the text back at A', () => whole(textOf(atA.received, page)))
    await waitFor('the text back at B', () => whole(textOf(atB.received, new Y.Doc())))
    expect(textOf(atB.received, new Y.Doc())).toBe(textOf(atA.received, page))
    expect(textOf(atA.received, page)).toHaveLength('Later: Meeting notes: budget approved'.length)
    const versions = (await (await fetch(`${sa.url}/v1/docs/${docId}/versions`)).json()) as {
      versions: { reason: string; authors: { number: string }[] }[]
    }
    // The attack is on record under C's number; the revert is a version of its own.
    expect(versions.versions[0]?.reason).toBe('revert')
    expect(versions.versions.some((v) => v.authors.some((p) => p.number === C))).toBe(true)
  })
})
