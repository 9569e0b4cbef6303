/**
 * The review API end to end on the toy daemon with two real sidecars and pages: a scripted agent
 * reads Alice's document through her sidecar and proposes two suggestions; both replicate to Bob's
 * sidecar and page; Bob accepts one and rejects the other through his sidecar; every replica ends
 * with the same text; a find made stale by an edit is refused with SUGGESTION_STALE.
 */
import { randomUUID } from 'node:crypto'
import { listSuggestions } from '@e2e-col/review'
import { describe, expect, it } from 'vitest'
import { call } from './docs-api.ts'
import { A, B, baseEnv, poll, sidecar, startToy } from './harness.ts'
import { pageOn } from './ybrowser.ts'

const TARGET = '?target=t&kind=text'

describe('suggestions through the sidecars', () => {
  it("an agent suggests through Alice's sidecar; Bob accepts one and rejects the other through his; all replicas agree", async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const [a, b] = await Promise.all([sidecar(baseEnv(toy, A, docId)), sidecar(baseEnv(toy, B, docId))])
    const alice = await pageOn(docId, a.url)
    const bob = await pageOn(docId, b.url)
    alice.edit('Day 1: museum. Day 2: long hike and a picnic.')
    await bob.until(() => bob.text.endsWith('picnic.'))
    await poll(
      async () => (await call(a, 'GET', `/v1/docs/${docId}/text${TARGET}`)).json?.text?.endsWith('picnic.'),
      "Alice's sidecar holds the text",
    )

    const read = await call(a, 'GET', `/v1/docs/${docId}/text${TARGET}`)
    expect(read.status).toBe(200)
    const suggest = (find: string, replace: string) =>
      call(a, 'POST', `/v1/docs/${docId}/suggestions`, {
        body: {
          base: read.json.base,
          find,
          replace,
          note: 'shorter',
          agent: 'Claude',
          target: { name: 't', kind: 'text' },
        },
      })
    const first = await suggest('long hike and a picnic', 'picnic')
    const second = await suggest('museum', 'gallery')
    expect([first.status, second.status]).toEqual([201, 201])

    await bob.until(() => listSuggestions(bob.doc).length === 2)
    await poll(
      async () => (await call(b, 'GET', `/v1/docs/${docId}/suggestions`)).json?.suggestions?.length === 2,
      "Bob's sidecar lists both",
    )
    const accepted = await call(b, 'POST', `/v1/docs/${docId}/suggestions/${first.json.id}/accept`, { body: {} })
    const rejected = await call(b, 'POST', `/v1/docs/${docId}/suggestions/${second.json.id}/reject`, { body: {} })
    expect([accepted.status, rejected.status]).toEqual([200, 200])

    const expected = 'Day 1: museum. Day 2: picnic.'
    await alice.until(() => alice.text === expected)
    await bob.until(() => bob.text === expected)
    await poll(
      async () => (await call(a, 'GET', `/v1/docs/${docId}/text${TARGET}`)).json?.text === expected,
      "Alice's replica",
    )
    const listed = (await call(a, 'GET', `/v1/docs/${docId}/suggestions`)).json.suggestions as { status: string }[]
    expect(listed.map((x) => x.status).sort()).toEqual(['accepted', 'rejected'])

    // Bob retypes a letter of the quoted word after the agent read: the text reads the same, but
    // the quote is no longer what the agent saw at its base (the stale-read rule).
    const base = (await call(a, 'GET', `/v1/docs/${docId}/text${TARGET}`)).json.base
    const at = bob.text.indexOf('museum') + 2
    bob.doc.transact(() => {
      bob.doc.getText('t').delete(at, 1)
      bob.doc.getText('t').insert(at, 's')
    })
    await poll(
      async () => (await call(a, 'GET', `/v1/docs/${docId}/text${TARGET}`)).json?.base !== base,
      "Bob's retyping at Alice's sidecar",
    )
    const stale = await call(a, 'POST', `/v1/docs/${docId}/suggestions`, {
      body: { base, find: 'museum', replace: 'zoo', target: { name: 't', kind: 'text' } },
    })
    expect(stale.status).toBe(409)
    expect(stale.json.error).toMatchObject({ code: 'SUGGESTION_STALE', detail: 'changed' })
    expect(bob.text).toBe(expected)
  })
})
