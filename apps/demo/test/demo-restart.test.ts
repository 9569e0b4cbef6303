/**
 * `npm start` run twice on the same folder: the documents made on the home page the first time
 * are still shared the second time (the toy's groups are kept next to the sidecars' stores).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startDemoStack, type DemoStack } from '../src/index.ts'

const api = async (
  stack: DemoStack,
  who: 'alice' | 'bob',
  method: string,
  path: string,
  body?: unknown,
): Promise<any> => {
  const res = await fetch(`${stack.sidecarUrl(who).replace('ws:', 'http:')}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return text === '' ? undefined : JSON.parse(text)
}

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
      docId = (await api(first, 'alice', 'POST', '/v1/docs', { title: 'Trip plan', members: [first.number('bob')] }))
        .docId
      await api(first, 'bob', 'POST', `/v1/invites/${docId}/accept`, {})
    } finally {
      await first.close()
    }
    const second = await startDemoStack(options)
    try {
      for (const who of ['alice', 'bob'] as const) {
        const docs = (await api(second, who, 'GET', '/v1/docs')).documents as {
          docId: string
          title: string
          state: string
          members: { number: string; status: string }[]
        }[]
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
})
