/**
 * `npm start` stopped the way people stop it, right after a document was made and shared: Ctrl-C
 * (SIGINT to the whole process group, as a terminal sends it; tsx's relay then kills its child
 * within milliseconds) and a kill. Every start finds every document made before, active on both
 * home pages with both people as members, and the invitee's editor opens each one (its socket is
 * served and answers a sync): the toy writes its groups before it answers a change.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { decodeEnvelope, encodeEnvelope } from '@e2e-col/protocol'
import { afterAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { callApi, listedDocs, madeDocId } from './docs-api.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const ALICE = '+15555550101'
const BOB = '+15555550102'
/** SIGINT cycles (the count), then kills of the same group. */
const SIGNALS: NodeJS.Signals[] = [...Array<NodeJS.Signals>(20).fill('SIGINT'), 'SIGKILL', 'SIGTERM']

interface Started {
  child: ChildProcess
  alice: string
  bob: string
}

/** `npm start` in a process group of its own; resolves with both sidecars' HTTP bases once printed. */
function npmStart(dataDir: string): Promise<Started> {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, E2E_COL_DEMO_DIR: dataDir },
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4000)
    })
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const links = [...out.matchAll(/name=(Alice|Bob)&sidecar=ws:\/\/([\d.:]+)/g)]
      const alice = links.find((l) => l[1] === 'Alice')?.[2]
      const bob = links.find((l) => l[1] === 'Bob')?.[2]
      if (alice !== undefined && bob !== undefined) resolve({ child, alice: `http://${alice}`, bob: `http://${bob}` })
    })
    child.once('exit', (code, signal) =>
      reject(new Error(`npm start ended (${code ?? signal}) before its links:\n${err}`)),
    )
  })
}

/** Signals the whole group as a terminal does and resolves once no process of it is left. */
async function stop(started: Started, signal: NodeJS.Signals): Promise<void> {
  const pid = started.child.pid ?? 0
  const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()))
  process.kill(-pid, signal)
  await exited
  // npm is gone; its group may still hold the demo for the relay's few milliseconds.
  for (;;) {
    try {
      process.kill(-pid, 0)
    } catch {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const listed = async (base: string, made: Map<string, string>): Promise<unknown[]> =>
  listedDocs(await callApi(base, 'GET', '/v1/docs'))
    .filter((d) => made.has(d.docId))
    .map((d) => ({ title: d.title, state: d.state, members: d.members.map((m) => m.number).sort() }))

/**
 * Opens `docId`'s editor socket on the sidecar at `base` as a page does and resolves once it
 * answers a sync request; rejects with why not (a document the sidecar lost is refused with 404).
 */
function opens(base: string, docId: string): Promise<void> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/docs/${docId}`)
  let stuck: NodeJS.Timeout | undefined
  return new Promise<void>((resolve, reject) => {
    stuck = setTimeout(() => reject(new Error(`${docId}: no sync answer within 30 s`)), 30_000)
    ws.once('unexpected-response', (_req, res) => reject(new Error(`${docId}: socket answered ${res.statusCode}`)))
    ws.once('error', reject)
    ws.once('close', (code) => reject(new Error(`${docId}: socket closed (${code}) before a sync answer`)))
    ws.once('open', () => {
      const env = { flags: 0, docId, senderId: randomUUID(), seq: 0 }
      // An empty document's state vector: the answer is everything the sidecar holds.
      ws.send(
        encodeEnvelope({
          ...env,
          kind: 'sync-request',
          messageId: randomBytes(16).toString('hex'),
          payload: new Uint8Array([0]),
        }),
      )
    })
    ws.on('message', (data: Buffer) => {
      if (decodeEnvelope(new Uint8Array(data)).kind === 'sync-response') resolve()
    })
  }).finally(() => {
    clearTimeout(stuck)
    ws.terminate()
  })
}

/**
 * Every document made so far is listed on both sides at once, active, with both people in its
 * group; each shows the other as `member` (not `invited`) once their sidecar's start-up hello is
 * heard, which a restart sends again.
 */
async function expectShared(started: Started, made: Map<string, string>): Promise<void> {
  const expected = [...made.values()].map((title) => ({ title, state: 'active', members: [ALICE, BOB] }))
  for (const base of [started.alice, started.bob]) expect(await listed(base, made)).toEqual(expected)
  for (const base of [started.alice, started.bob]) {
    await expect
      .poll(
        async () =>
          listedDocs(await callApi(base, 'GET', '/v1/docs'))
            .filter((d) => made.has(d.docId))
            .flatMap((d) => d.members.map((m) => m.status))
            .filter((status) => status !== 'member'),
        { timeout: 20_000, interval: 100 },
      )
      .toEqual([])
  }
  // Bob, the invitee, opens every one of them in his editor.
  for (const docId of made.keys()) await opens(started.bob, docId)
}

describe('npm start stopped right after a document is shared', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-ctrl-c-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it(`finds every document again after ${SIGNALS.length} stops (Ctrl-C, SIGTERM, SIGKILL)`, async () => {
    const made = new Map<string, string>()
    for (const [cycle, signal] of SIGNALS.entries()) {
      const began = Date.now()
      const started = await npmStart(dataDir)
      try {
        await expectShared(started, made)
        const title = `Cycle ${cycle} (${signal})`
        const docId = madeDocId(await callApi(started.alice, 'POST', '/v1/docs', { title, members: [BOB] }))
        await callApi(started.bob, 'POST', `/v1/invites/${docId}/accept`, {})
        made.set(docId, title)
      } finally {
        await stop(started, signal)
      }
      console.info(`[ctrl-c] cycle ${cycle} (${signal}): ${made.size} documents, ${Date.now() - began} ms`)
    }
    const last = await npmStart(dataDir)
    try {
      await expectShared(last, made)
    } finally {
      await stop(last, 'SIGINT')
    }
  }, 900_000) // a bound on a stuck run: 23 starts of the whole demo on a loaded machine
})
