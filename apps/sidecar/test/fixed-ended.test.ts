/**
 * A document fixed in E2E_COL_DOCUMENTS whose group was ended (deleted for everyone): its sidecar
 * stops serving it and lists it as deleted for everyone, by whom; started again with the same
 * configuration, it stays ended (the fixed entry does not bring it back).
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import type { RunningSidecar } from '../src/index.ts'
import { ALICE, BOB, call, librarySidecar, rpc, startPeopleToy } from './docs-api.ts'
import { poll, tempDataDir } from './harness.ts'

const DOC = '7a1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e5f'
const GROUP = createHash('sha256').update('fixed and ended').digest('base64')

interface Card {
  docId: string
  state: string
  fixed: boolean
  deletedForEveryone?: true
  removedBy?: { number: string }
}

const card = async (s: RunningSidecar, docId: string): Promise<Card | undefined> =>
  ((await call(s, 'GET', '/v1/docs')).json.documents as Card[]).find((d) => d.docId === docId)

/** Whether a WebSocket to the document opens (served) or is refused. */
const opens = (s: RunningSidecar, docId: string): Promise<boolean> =>
  new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/v1/docs/${docId}`)
    ws.on('open', () => {
      ws.close()
      resolve(true)
    })
    ws.on('error', () => resolve(false))
    ws.on('close', () => resolve(false))
  })

describe('a fixed document whose group was ended', () => {
  it('is listed as deleted for everyone and no longer served, also after a restart', async () => {
    // Bob is the group's first member: its admin, who may end it.
    const toy = await startPeopleToy({
      signalCliVersion: '0.14.8',
      groups: [{ name: 'Welcome', members: [BOB, ALICE], id: GROUP }],
    })
    const env = { E2E_COL_DATA_DIR: tempDataDir(), E2E_COL_DOCUMENTS: `${DOC}=${GROUP}` }
    const first = await librarySidecar(toy, ALICE, env)
    expect(await card(first, DOC)).toMatchObject({ state: 'active', fixed: true })
    expect(await opens(first, DOC)).toBe(true)

    await rpc(toy.url, 'terminateGroup', { account: BOB, groupId: GROUP })
    await poll(async () => (await card(first, DOC))?.deletedForEveryone === true, 'the fixed document ended')
    expect(await card(first, DOC)).toMatchObject({ state: 'removed', fixed: true, removedBy: { number: BOB } })
    expect(await opens(first, DOC)).toBe(false)
    await first.close()

    const second = await librarySidecar(toy, ALICE, env)
    expect(await card(second, DOC)).toMatchObject({ state: 'removed', deletedForEveryone: true })
    expect(await opens(second, DOC)).toBe(false)
  }, 60_000)
})
