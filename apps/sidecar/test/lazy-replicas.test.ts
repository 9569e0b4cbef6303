/**
 * Lazy replicas (issue #41, decisions/0040): a served document is in memory only while it is used.
 * Alice's sidecar may hold one document at a time and takes a quiet one out after a second; Bob
 * writes in all three at once while Alice writes in one. Every document is loaded again for each
 * envelope, page or call, and nothing is lost, duplicated or credited to the wrong person.
 */
import { randomUUID } from 'node:crypto'
import { createToySignal } from '@e2e-col/toy-signal'
import { describe, expect, it, onTestFinished } from 'vitest'
import { A, B, baseEnv, metricValue, poll, sidecar, tempDataDir } from './harness.ts'
import { call } from './docs-api.ts'
import { pageOn, type YBrowser } from './ybrowser.ts'

const moves = (s: { url: string }, move: 'in' | 'out') =>
  metricValue(s.url, `e2e_col_document_moves_total{move="${move}"}`)
const inMemory = (s: { url: string }) => metricValue(s.url, 'e2e_col_documents_in_memory')

type Authors = Record<string, { number?: string | null; relayedBy?: { number: string | null } }>
const authorOf = async (s: { port: number }, docId: string, clientId: number): Promise<string | null | undefined> => {
  const view = (await call(s, 'GET', `/v1/docs/${docId}/authors`)).json.authors as Authors
  const a = view[String(clientId)]
  return a?.number ?? a?.relayedBy?.number
}

async function written(pages: readonly YBrowser[]): Promise<void> {
  await Promise.all(pages.map((p) => p.until(() => p.outbox.size === 0, 20_000)))
}

describe('lazy replicas', () => {
  it('a document taken out of memory and loaded again under concurrent traffic loses nothing and keeps who wrote what', async () => {
    const names = ['one', 'two', 'three']
    const toy = await createToySignal({
      accounts: [A, B],
      groups: names.map((name) => ({ name, members: [A, B] })),
      keepAliveMs: 1000,
    })
    onTestFinished(() => toy.close())
    const ids = names.map(() => randomUUID())
    const documents = ids.map((id, i) => `${id}=${toy.groups[i]?.id ?? ''}`).join(',')
    const first = ids[0] ?? ''
    const lazy = { E2E_COL_DOCUMENTS: documents, E2E_COL_MAX_LOADED_DOCS: '1', E2E_COL_EVICT_AFTER_MS: '1000' }
    const a = await sidecar(baseEnv(toy, A, first, { ...lazy, E2E_COL_DATA_DIR: tempDataDir() }))
    const b = await sidecar(baseEnv(toy, B, first, { E2E_COL_DOCUMENTS: documents }))
    // At start only as many as the bound allows are loaded (the first served one here).
    expect(await inMemory(a)).toBe(1)

    const alice = await pageOn(first, a.url)
    alice.edit('alice-0;')
    await written([alice])
    alice.close()
    const bobs = await Promise.all(ids.map((id) => pageOn(id, b.url)))
    bobs.forEach((p, i) => p.edit(`bob-${i}-0;`))
    await written(bobs)
    // Each of Alice's documents came in for Bob's edit, and the bound took all but one out again.
    await poll(async () => (await moves(a, 'in')) >= ids.length, 'each document loaded at Alice')
    await poll(async () => (await inMemory(a)) <= 1, 'Alice holding at most one document', 20_000)
    const second = ids[1] ?? ''
    const bobsId = bobs[1]?.doc.clientID ?? 0
    expect(await authorOf(b, second, bobsId)).toBe(B)
    await poll(async () => (await authorOf(a, second, bobsId)) === B, "Bob's edit credited to Bob at Alice")

    // Alice writes again while Bob writes in every document: documents go out and come back meanwhile.
    const again = await pageOn(first, a.url)
    await again.until(() => again.text.includes('alice-0;') && again.text.includes('bob-0-0;'))
    for (let round = 1; round <= 4; round++) {
      const out = await moves(a, 'out')
      bobs.forEach((p, i) => p.edit(`bob-${i}-${round};`))
      again.edit(`alice-${round};`)
      await written([...bobs, again])
      await poll(async () => (await moves(a, 'out')) > out, `a document taken out during round ${round}`, 20_000)
    }

    // Every page on either side ends with the same text: nothing lost, nothing twice.
    const alices = [again, ...(await Promise.all(ids.slice(1).map((id) => pageOn(id, a.url))))]
    for (const [i, page] of alices.entries()) {
      const bob = bobs[i] as YBrowser
      const want = [0, 1, 2, 3, 4].map((r) => `bob-${i}-${r};`)
      await page.until(() => page.text === bob.text && want.every((t) => page.text.includes(t)), 20_000)
      for (const t of want) expect(page.text.split(t)).toHaveLength(2)
    }
    await bobs[0]?.until(() => [0, 1, 2, 3, 4].every((r) => bobs[0]?.text.includes(`alice-${r};`)), 20_000)
    // Authorship held across the loads: Bob's words are Bob's, Alice's Alice's, on both sidecars.
    for (const s of [a, b]) {
      expect(await authorOf(s, second, bobsId)).toBe(B)
      expect(await authorOf(s, first, again.doc.clientID)).toBe(A)
      expect(await authorOf(s, first, bobs[0]?.doc.clientID ?? 0)).toBe(B)
    }
    // History heard Bob before the documents left memory: his edits after a load start no catch-up version.
    for (const id of ids) {
      const versions = (await call(a, 'GET', `/v1/docs/${id}/versions`)).json.versions as { reason: string }[]
      // One per voice first heard: Bob, and content relayed in a sync answer (no author).
      expect(versions.filter((v) => v.reason === 'catch-up').length).toBeLessThanOrEqual(2)
    }
  }, 120_000)
})
