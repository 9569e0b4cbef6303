/**
 * `npm start` run twice on the same folder: the documents made on the home page the first time
 * are still shared the second time (the toy's groups are kept next to the sidecars' stores).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DEMO_GROUP_ID, DEMO_TITLE, startDemoStack, type DemoStack, type Who } from '../src/index.ts'
import { callApi, listedDocs, madeDocId } from './docs-api.ts'

const api = (stack: DemoStack, who: Who, method: string, path: string, body?: unknown): Promise<unknown> =>
  callApi(stack.sidecarUrl(who), method, path, body)

/** The demo document's title as Alice's and Bob's sidecars list it. */
const titles = async (stack: DemoStack): Promise<string[]> =>
  Promise.all(
    (['alice', 'bob'] as const).map(
      async (who) =>
        listedDocs(await api(stack, who, 'GET', '/v1/docs')).find((d) => d.docId === stack.docId)?.title ?? '',
    ),
  )

describe('the demo started again on the same folder', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  it('still shares the documents made the first time, with the same people', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-demo-again-'))
    dirs.push(dataDir)
    const options = { dataDir, page: false, sidecarPorts: [0, 0] as const, sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } }
    const first = await startDemoStack(options)
    let docId: string
    try {
      docId = madeDocId(
        await api(first, 'alice', 'POST', '/v1/docs', { title: 'Trip plan', members: [first.number('bob')] }),
      )
      await api(first, 'bob', 'POST', `/v1/invites/${docId}/accept`, {})
    } finally {
      await first.close()
    }
    const second = await startDemoStack(options)
    try {
      for (const who of ['alice', 'bob'] as const) {
        const docs = listedDocs(await api(second, who, 'GET', '/v1/docs'))
        const trip = docs.find((d) => d.docId === docId)
        expect(trip).toMatchObject({ title: 'Trip plan', state: 'active' })
        expect(trip?.members.map((m) => `${m.number}:${m.status}`).sort()).toEqual([
          `${second.number('alice')}:member`,
          `${second.number('bob')}:member`,
        ])
      }
    } finally {
      await second.close()
    }
  }, 60_000)

  it('keeps the demo document’s new title: a rename is not undone by the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-demo-renamed-'))
    dirs.push(dataDir)
    const options = { dataDir, page: false, sidecarPorts: [0, 0] as const, sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } }
    const first = await startDemoStack(options)
    try {
      expect(await titles(first)).toEqual([DEMO_TITLE, DEMO_TITLE])
      await api(first, 'alice', 'PATCH', `/v1/docs/${first.docId}`, { title: 'Our plans' })
      await expect.poll(() => titles(first), { timeout: 20_000 }).toEqual(['Our plans', 'Our plans'])
    } finally {
      await first.close()
    }
    const second = await startDemoStack(options)
    try {
      // Both sidecars read the group's name from Signal at start: the old seed would bring DEMO_TITLE back.
      expect(second.toy.snapshotGroups().find((g) => g.id === DEMO_GROUP_ID)?.name).toBe('Our plans')
      await expect.poll(() => titles(second), { timeout: 20_000 }).toEqual(['Our plans', 'Our plans'])
    } finally {
      await second.close()
    }
  }, 60_000)
})
