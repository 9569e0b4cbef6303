/**
 * Authorship against a hostile member (decisions/0021): account C posts, through the daemon's own
 * `send` as any member could, an update written under the Yjs client id of Alice's page, and one
 * squatting that id's next clock. Sidecars for Alice (A) and Bob (B), each in its own process, drop
 * both (counted), neither reaches a page, and Alice's next edit still arrives everywhere: Bob's
 * replica holds exactly what Alice typed.
 */
import { decodeBody, decodeEnvelope, decodeHealth, encodeBody, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import * as Y from 'yjs'
import { A, B, C, envelopeOf, metric, postAs, reader, sidecarEnv, toyWithThree, waitFor, wsUrl } from './edge.ts'
import { SidecarNode } from '../src/sidecar-node.ts'

/** A sidecar in a process of its own, as people run it (killed when the test ends). */
async function sidecarProcess(env: Record<string, string>): Promise<SidecarNode> {
  const node = new SidecarNode(env, 'child')
  await node.start()
  onTestFinished(() => node.stop())
  return node
}

const FORGED = 'e2e_col_received_dropped_total{reason="forged-author"}'
const ALICE_PAGE = 0x5eed_a11c

/** A document writing under `clientId`, as a page's is. */
const docOf = (clientId: number): Y.Doc => Object.assign(new Y.Doc(), { clientID: clientId })

/** Appends `text` to `doc` and answers the update that made (what a page sends). */
function typeInto(doc: Y.Doc, text: string): Uint8Array {
  const sv = Y.encodeStateVector(doc)
  const t = doc.getText('t')
  t.insert(t.length, text)
  return Y.encodeStateAsUpdate(doc, sv)
}

/** An update under `clientId` whose first struct sits at `clock` (C fills the clocks below itself). */
function written(clientId: number, clock: number, text: string): Uint8Array {
  const doc = docOf(clientId)
  if (clock > 0) typeInto(doc, '#'.repeat(clock))
  return typeInto(doc, text)
}

/** The text a page holds after applying every update its sidecar sent it. */
function textOf(received: readonly Envelope[]): string {
  const doc = new Y.Doc()
  for (const e of received) if (e.kind === 'update' || e.kind === 'sync-response') Y.applyUpdate(doc, e.payload)
  return doc.getText('t').toString()
}

const has = (list: readonly Envelope[], id: string) => list.some((e) => e.messageId === id)

describe("a member cannot write under another member's Yjs client id", () => {
  it("drops C's forged and clock-squatting updates at A and B; Alice's next edit arrives everywhere", async () => {
    const toy = await toyWithThree()
    const docId = randomUUID()
    const sa = await sidecarProcess(sidecarEnv(toy, A, docId))
    const sb = await sidecarProcess(sidecarEnv(toy, B, docId))
    const alice = await reader(wsUrl(sa, docId))
    const aliceOther = await reader(wsUrl(sa, docId))
    const bob = await reader(wsUrl(sb, docId))
    const page = docOf(ALICE_PAGE)
    const pageSender = randomUUID() // a connection keeps one sender id

    const first = envelopeOf(docId, pageSender, typeInto(page, 'hello'))
    alice.ws.send(encodeEnvelope(first))
    await waitFor("Alice's first edit at Bob's page", () => has(bob.received, first.messageId))
    // A announces its page's client id to the group, in a health record Signal authenticates as A's.
    await waitFor("A's announcement of its page's client id", () =>
      toy
        .sends()
        .filter((s) => s.account === A)
        .map((s) => decodeEnvelope(decodeBody(s.message)))
        .some((e) => e.kind === 'health' && (decodeHealth(e.payload).authors ?? []).includes(ALICE_PAGE)),
    )

    // C writes under Alice's client id: once far ahead, once exactly at her next clock.
    const forged = envelopeOf(docId, randomUUID(), written(ALICE_PAGE, 40, ' (forged by C)'))
    const squat = envelopeOf(docId, randomUUID(), written(ALICE_PAGE, 5, ' (squatted by C)'))
    await postAs(toy, C, encodeBody(encodeEnvelope(forged)))
    await postAs(toy, C, encodeBody(encodeEnvelope(squat)))
    // C's own writing, after the forgeries, shows the group delivered all three in order.
    const own = envelopeOf(docId, randomUUID(), typeInto(docOf(0xc0ffee), 'C here'))
    await postAs(toy, C, encodeBody(encodeEnvelope(own)))
    await waitFor("C's own update at Bob's page", () => has(bob.received, own.messageId))
    await waitFor("C's own update at Alice's other page", () => has(aliceOther.received, own.messageId))
    for (const s of [sa, sb]) expect(await metric(s, FORGED)).toBe(2)
    for (const list of [bob.received, aliceOther.received])
      for (const env of [forged, squat]) expect(has(list, env.messageId)).toBe(false)

    // Alice types on (her page never saw the squatter): the edit arrives and nothing is lost.
    const next = envelopeOf(docId, pageSender, typeInto(page, ' world'))
    alice.ws.send(encodeEnvelope(next))
    await waitFor("Alice's next edit at Bob's page", () => has(bob.received, next.messageId))
    expect(textOf(bob.received)).toMatch(/^(hello worldC here|C herehello world)$/)
    expect(textOf(bob.received)).not.toContain('C)')

    // Bob's sidecar says who wrote what: Alice's page is A's, verified; C's is C's.
    const res = await fetch(`${sb.url}/v1/docs/${docId}/authors`)
    expect(res.status).toBe(200)
    const { authors } = (await res.json()) as { authors: Record<string, { number: string; verified: boolean }> }
    expect(authors[String(ALICE_PAGE)]).toMatchObject({ number: A, verified: true })
    expect(authors[String(0xc0ffee)]).toMatchObject({ number: C, verified: true })
  })
})
