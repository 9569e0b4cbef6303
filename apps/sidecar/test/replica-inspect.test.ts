import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { DocReport } from '../src/cli/inspect.ts'
import { A, baseEnv, sidecar, startToy, tempDataDir } from './harness.ts'
import { runSidecar } from './child-sidecar.ts'
import { YBrowser } from './ybrowser.ts'

describe('e2e-col-sidecar inspect', () => {
  it('reports size, state vector and remembered ids read-only, while the sidecar runs and after it stopped', async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const dir = tempDataDir()
    // The ids counted below are the page's ten edits: the sidecar's own announcement of its pages'
    // authors (sent within a second, its id remembered too) is off here.
    const s = await sidecar(baseEnv(toy, A, docId, { E2E_COL_DATA_DIR: dir, E2E_COL_ANNOUNCE_AUTHORS: '0' }))
    const alice = new YBrowser(docId)
    await alice.connect(s.url)
    for (let i = 0; i < 10; i++) alice.edit(`line ${i}\n`)
    await alice.until(() => alice.outbox.size === 0)
    const items = [...Y.decodeStateVector(Y.encodeStateVector(alice.doc)).values()].reduce((n, c) => n + c, 0)

    const live = await runSidecar({}, ['inspect', '--doc', docId, '--data-dir', dir, '--json'])
    expect(live.code).toBe(0)
    const report = JSON.parse(live.stdout) as DocReport
    expect(report).toMatchObject({
      docId,
      store: join(dir, 'replica.sqlite3'),
      sentIds: 10,
      stateBytes: Y.encodeStateAsUpdate(alice.doc).byteLength,
    })
    expect(report.stateVector).toEqual({ clients: 1, items, top: [{ client: alice.doc.clientID, clock: items }] })
    expect(report.logRows).toBeGreaterThanOrEqual(1)
    expect(report.logBytes).toBeGreaterThanOrEqual(report.stateBytes)

    await s.close()
    const after = await runSidecar({ E2E_COL_DATA_DIR: dir }, ['inspect', '--doc', docId])
    expect(after.code).toBe(0)
    expect(after.stdout).toContain('sent ids      10 remembered')
    expect(after.stdout).toContain(`state vector  1 clients, ${items} items`)
  })

  it("finds the document in npm start's stores when none is named; an unknown document is exit 10, not zeros", async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const root = tempDataDir()
    const bobStore = join(root, '.e2e-col-tmp', 'demo', 'bob')
    mkdirSync(bobStore, { recursive: true })
    const s = await sidecar(baseEnv(toy, A, docId, { E2E_COL_DATA_DIR: bobStore }))
    const page = new YBrowser(docId)
    await page.connect(s.url)
    page.edit('Day 1: Lisbon.')
    await page.until(() => page.outbox.size === 0)
    await s.close()
    // A home with no e2e-col up store; run from a folder inside the "repository".
    const home = tempDataDir()
    const sub = join(root, 'apps')
    mkdirSync(sub)
    const found = await runSidecar({ HOME: home }, ['inspect', '--doc', docId], sub)
    expect(found.code).toBe(0)
    expect(found.stdout).toContain(`store         ${join(bobStore, 'replica.sqlite3')}`)

    const unknown = randomUUID()
    const none = await runSidecar({ HOME: home }, ['inspect', '--doc', unknown], sub)
    expect([none.code, none.stdout]).toEqual([10, ''])
    expect(none.stderr).toContain(`no store holds document ${unknown} (looked in Bob's in npm start, ${bobStore})`)
    const named = await runSidecar({}, ['inspect', '--doc', unknown, '--data-dir', bobStore, '--json'])
    expect([named.code, named.stdout]).toEqual([10, ''])
    expect(named.stderr).toContain(`holds nothing of document ${unknown}`)
  })

  it('exits 9 naming the path when there is no store, without creating one; 2 without --doc', async () => {
    const dir = join(tempDataDir(), 'nothing-here')
    const missing = await runSidecar({}, ['inspect', '--doc', randomUUID(), '--data-dir', dir])
    expect(missing.code).toBe(9)
    expect(missing.stderr).toContain(join(dir, 'replica.sqlite3'))
    expect(existsSync(dir)).toBe(false)
    expect((await runSidecar({}, ['inspect', '--data-dir', dir])).code).toBe(2)
  })
})
