/**
 * A person's own edits go first: while a member's sidecar answers a hostile whole-document request
 * in chunks at the default pace (one send a second), an edit typed on that sidecar's page goes
 * between two of the answer's bodies instead of after all of them. Measured against the same
 * edit's latency at rest; the ratio is printed.
 */
import { CAPABILITY, encodeBody, encodeEnvelope, encodeHealth, PROTOCOL_VERSION } from '@e2e-col/protocol'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { C, envelopeOf, metric, postAs, reader, twoSidecars, update, waitFor, wsUrl } from './edge.ts'

const PACE = { E2E_COL_SENDS_PER_SECOND: '1', E2E_COL_SEND_BURST: '5' }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** About `chars` characters of words: deflates well, so the set-up goes in a few bodies. */
function prose(chars: number): string {
  const words = 'shared document signal group edit merge sidecar browser page offline sync answer'.split(' ')
  let out = ''
  for (let x = 7; out.length < chars;) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    out += `${words[x % words.length]} `
  }
  return out
}

const announce = (docId: string, features: number) =>
  encodeBody(
    encodeEnvelope(
      envelopeOf(
        docId,
        randomUUID(),
        encodeHealth({ capabilities: { envelopeVersion: PROTOCOL_VERSION, features } }),
        'health',
      ),
    ),
  )

describe("a person's own edits go first", () => {
  it("an edit on the answering sidecar's page is not held behind the group's chunked answer", async () => {
    const { toy, docId, sa, sb } = await twoSidecars(PACE)
    const pageA = { ...(await reader(wsUrl(sa, docId))), sender: randomUUID() }
    const pageB = { ...(await reader(wsUrl(sb, docId))), sender: randomUUID() }
    // C reads deflate for the set-up (a 24 KB document in a few bodies), then nothing: the answer
    // to its request goes as plain text chunks, about 17 bodies.
    await postAs(toy, C, announce(docId, CAPABILITY.deflate))
    await waitFor(
      "C's announcement",
      async () => (await metric(sa, 'e2e_col_capability_announcements_total{direction="received"}')) >= 2,
    )
    const doc = envelopeOf(docId, pageA.sender, update(prose(24_000)))
    pageA.ws.send(encodeEnvelope(doc))
    await waitFor('the document at B', () => pageB.received.some((e) => e.messageId === doc.messageId), 20_000)
    await postAs(toy, C, announce(docId, 0))
    await sleep(6000) // the pace's burst is back

    /** ms from typing on `from` to the edit on the other page. */
    const edit = async (from: typeof pageA, to: typeof pageA) => {
      const e = envelopeOf(docId, from.sender, update(`x${Date.now()}`))
      const t0 = Date.now()
      from.ws.send(encodeEnvelope(e))
      await waitFor('the edit on the other page', () => to.received.some((r) => r.messageId === e.messageId), 30_000)
      return Date.now() - t0
    }
    const rest = Math.max(await edit(pageA, pageB), await edit(pageB, pageA))
    await sleep(6000)

    const chunksBefore =
      (await metric(sa, 'e2e_col_chunks_sent_total')) + (await metric(sb, 'e2e_col_chunks_sent_total'))
    await postAs(toy, C, encodeBody(encodeEnvelope(envelopeOf(docId, randomUUID(), Uint8Array.of(0), 'sync-request'))))
    // The answer is under way (its burst spent), then both pages type.
    await waitFor(
      'the answer under way',
      async () =>
        (await metric(sa, 'e2e_col_chunks_sent_total')) + (await metric(sb, 'e2e_col_chunks_sent_total')) >=
        chunksBefore + 6,
      15_000,
    )
    const [fromA, fromB] = await Promise.all([edit(pageA, pageB), edit(pageB, pageA)])
    const chunksAfter =
      (await metric(sa, 'e2e_col_chunks_sent_total')) + (await metric(sb, 'e2e_col_chunks_sent_total'))
    const during = Math.max(fromA, fromB)
    console.log(
      `own edit during the answer: ${during} ms (A→B ${fromA}, B→A ${fromB}) vs ${rest} ms at rest = ${(during / rest).toFixed(2)}x; answer chunks by then: ${chunksAfter - chunksBefore}`,
    )
    // The answer was still going when the edits arrived (it is ~17 bodies at 1/s).
    expect(chunksAfter - chunksBefore).toBeLessThan(15)
    // Within 2x the rest latency, which at one send a second is at most one interval.
    expect(during).toBeLessThanOrEqual(2 * Math.max(rest, 1000))
  }, 90_000)
})
