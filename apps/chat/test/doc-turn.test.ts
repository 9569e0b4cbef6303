// A document turn end to end on the toy daemon and a real local sidecar: the operator sends
// "in 'Trip plan': shorten day 2", the scripted agent answers FIND/REPLACE blocks, the sidecar ends
// with the suggestion open under the token's name and listed in one Note to Self, and the group gets the short report.
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeEnvelope } from '@e2e-col/protocol'
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { chatIn, LOOP, OPERATOR, until, useWorld, type World } from './harness.ts'

const worlds = useWorld()
const TEXT = 'Day 1: museum.\nDay 2: long hike and a picnic.\n'

/** The operator's sidecar on the loop's account, serving one document titled `title`. */
async function startDocSidecar(w: World, title: string): Promise<{ sidecar: RunningSidecar; docId: string }> {
  const group = (await w.rpc(LOOP, 'updateGroup', { name: title, members: [OPERATOR] })) as { groupId: string }
  const docId = randomUUID()
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-chat-doc-'))
  worlds.defer(() => rmSync(dataDir, { recursive: true, force: true }))
  const sidecar = await startSidecar(
    loadConfig({
      SIGNAL_CLI_URL: w.toy.url,
      SIGNAL_CLI_ACCOUNT: LOOP,
      E2E_COL_DOCUMENTS: `${docId}=${group.groupId}`,
      E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
      E2E_COL_LISTEN: '127.0.0.1:0',
      E2E_COL_DATA_DIR: dataDir,
      E2E_COL_SYNC_ON_START: '0',
      E2E_COL_LOG_LEVEL: 'silent',
    }),
  )
  worlds.defer(() => sidecar.close())
  return { sidecar, docId }
}

/** Types `text` into the document as a browser page would: one Yjs update over the socket. */
async function typeInto(sidecar: RunningSidecar, docId: string, text: string): Promise<void> {
  const doc = new Y.Doc()
  doc.getText('text').insert(0, text)
  const ws = new WebSocket(`${sidecar.url.replace('http', 'ws')}/v1/docs/${docId}`)
  worlds.defer(() => ws.terminate())
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  ws.send(
    encodeEnvelope({
      kind: 'update',
      flags: 0,
      docId,
      senderId: randomUUID(),
      messageId: randomBytes(16).toString('hex'),
      seq: 0,
      payload: Y.encodeStateAsUpdate(doc),
    }),
  )
}

/** Polls the document's text until it is `want` (the test's deadline bounds it). */
async function textIs(sidecar: RunningSidecar, docId: string, want: string): Promise<void> {
  while ((await api(sidecar, `/v1/docs/${docId}/text`)).text !== want) await new Promise((r) => setTimeout(r, 20))
}

async function api(sidecar: RunningSidecar, path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${sidecar.url}${path}`, init)
  return res.json()
}

describe('a document prompt through the local sidecar', () => {
  it('"in \'Trip plan\': shorten day 2" leaves the agent’s suggestion open under the token’s name and reports it to the group', async () => {
    const world = await worlds.world()
    const { sidecar, docId } = await startDocSidecar(world, 'Trip plan')
    await typeInto(sidecar, docId, TEXT)
    await textIs(sidecar, docId, TEXT)
    const { token } = (await api(sidecar, '/v1/agent-tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ docs: [docId], name: 'Claude' }),
    })) as { token: string }

    const chat = chatIn(world, 'echo topic', ['--sidecar', sidecar.url.replace('http', 'ws'), '--agent-token', token])
    const { groupId } = await chat.ready
    await chat.turnEnded(1)
    await world.say(groupId, "in 'Trip plan': shorten day 2")
    const report = await chat.events.next('posted', (e) => e.text.includes('Trip plan'))

    expect(report.text).toContain(
      'Suggested 1 change in “Trip plan”; approve them on your phone (Note to Self) or on the page.',
    )
    expect(report.text).toContain('“no such words” was not found once in the text; not suggested.')
    const prompt = world.agentRuns().at(-1)?.prompt ?? ''
    expect(prompt).toContain('shorten day 2')
    expect(prompt).toContain(TEXT.trim())
    const { suggestions } = (await api(sidecar, `/v1/docs/${docId}/suggestions`)) as {
      suggestions: Array<{ agent?: string; find: string; replace: string; note?: string; status: string }>
    }
    expect(suggestions).toEqual([
      expect.objectContaining({
        agent: 'Claude',
        find: 'long hike',
        replace: 'short walk',
        note: 'day 2 is shorter',
        status: 'open',
      }),
    ])
    // The person approves it from the phone: one Note to Self lists it.
    const notes = () => world.toy.sends().filter((s) => s.account === LOOP && s.recipients?.[0] === LOOP)
    await until(() => notes().length >= 1, 10_000, 'the approval list in Note to Self')
    expect(notes()[0]?.message).toMatch(/^Claude suggests 1 change in “Trip plan”/)
    // The token never reaches the group.
    expect(world.toy.sends().some((s) => s.message.includes(token))).toBe(false)
    chat.stop.abort()
    expect(await chat.exit).toBe(0)
  }, 60_000)
})
