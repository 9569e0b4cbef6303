/**
 * Section 7: big payloads at Signal's pace, the attachment path against the text path in the same
 * run. The toy enforces Signal's pace (60 messages per sender and destination refilled one per
 * second, 50 uploads one per 1.2 s) and the sidecars run at their default pacing (1/s, burst 5):
 * - joining: Alice's sidecar holds the automerge-paper trace's final document; Bob is added to the
 *   group and his sidecar starts with an empty store. `joinSends` are the Signal sends (both
 *   sidecars) and `joinMs` the time from Bob's sidecar starting until his page holds the document.
 * - pasting 100 KB of prose into a live document: sends and time until the peer's page has it.
 * - wire efficiency: Yjs payload bytes per byte handed to the daemon (text bodies plus data URIs).
 * The text path is the same with attachments off (E2E_COL_CAPABILITIES=deflate on both sidecars).
 * In quick mode the text path runs with pacing off and its time at the default pacing is computed
 * from its sends, as elsewhere in the bench; the attachment path is always timed at the pace.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'
import { createToySignal, type SendRecord, type ToySignal } from '@e2e-col/toy-signal'
import * as Y from 'yjs'
import {
  ACCOUNTS,
  connectBenchClient,
  PACING_DEFAULT,
  PACING_OFF,
  sidecarEnv,
  untilDoc,
  untilSaved,
  type BenchClient,
  type Pacing,
} from './stack.ts'
import { ConvergenceError, REPLAY_TRACE } from './trace-replay.ts'
import { applyPatches, loadTrace } from './traces.ts'

export type PayloadPath = 'attachment' | 'text'

/** One measured big-payload transfer. */
export interface BigRun {
  readonly path: PayloadPath
  /** Timed at the default pacing (else pacing off, and `pacedSeconds` is computed from the sends). */
  readonly timedAtPace: boolean
  readonly ms: number
  /** Signal sends by both sidecars during the transfer, and how many carried an attachment. */
  readonly sends: number
  readonly attachmentSends: number
  /** Bytes handed to the daemon: text bodies plus data-URI attachments. */
  readonly daemonBytes: number
  /** Yjs payload bytes the transfer carried (the document state, or the paste's update). */
  readonly payloadBytes: number
  readonly efficiency: number
  /** Requests Signal's pace refused during the transfer (messages, uploads, recipients' inbound bytes). */
  readonly refused: { messages: number; attachments: number; inboundBytes: number }
  readonly pacedSeconds: number
}

export interface BigPayloadsResult {
  readonly documentBytes: number
  readonly join: { attachment: BigRun; text: BigRun }
  readonly paste: { bytes: number; attachment: BigRun; text: BigRun }
  /** Written to bench/results as the issue names them. */
  readonly joinSends: number
  readonly joinMs: number
  readonly ratios: { joinSends: number; joinMs: number; pasteSends: number; pasteMs: number }
  readonly targets: Record<string, boolean>
}

const PASTE_BYTES = 100_000
const pacedSeconds = (sends: number): number =>
  Math.max(0, sends - PACING_DEFAULT.burst) / PACING_DEFAULT.sendsPerSecond

/** The automerge-paper trace replayed into one document: its encoded state is what a newcomer needs. */
function paperDocument(): { update: Uint8Array; text: string } {
  const trace = loadTrace(REPLAY_TRACE)
  const doc = new Y.Doc()
  const text = doc.getText('text')
  for (const txn of trace.txns) doc.transact(() => applyPatches(text, txn.patches))
  if (text.toString() !== trace.endContent) throw new ConvergenceError('the replayed paper differs from the trace end')
  return { update: Y.encodeStateAsUpdate(doc), text: trace.endContent }
}

/** Bytes handed to the daemon for these sends: bodies plus the data URIs of their attachments. */
function daemonBytes(sends: readonly SendRecord[]): number {
  // data:application/octet-stream;filename=e2e-col-<32 hex>.bin;base64, is 83 characters.
  return sends.reduce(
    (n, s) =>
      n +
      Buffer.byteLength(s.message) +
      (s.attachmentBytes === undefined ? 0 : 83 + 4 * Math.ceil(s.attachmentBytes / 3)),
    0,
  )
}

interface Rig {
  readonly toy: ToySignal
  readonly groupId: string
  readonly docId: string
  start(side: 'a' | 'b', pacing: Pacing, extra?: Record<string, string>): Promise<RunningSidecar>
  close(): Promise<void>
}

async function rig(path: PayloadPath, members: readonly string[], enforcePace: boolean): Promise<Rig> {
  const docId = randomUUID()
  const groupId = createHash('sha256').update(`big ${docId}`).digest('base64')
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-bench-big-'))
  const toy = await createToySignal({
    accounts: [ACCOUNTS.a, ACCOUNTS.b],
    groups: [{ name: 'big', members: [...members], id: groupId }],
    signalPace: enforcePace ? true : 'count',
  })
  const running: RunningSidecar[] = []
  const groups = [{ name: 'big', members: [...members], id: groupId }]
  return {
    toy,
    groupId,
    docId,
    async start(side, pacing, extra = {}) {
      const env = sidecarEnv(side, {
        toyUrl: toy.url,
        docIds: [docId],
        groups,
        dataDir,
        options: { pacing, env: { ...(path === 'text' ? { E2E_COL_CAPABILITIES: 'deflate' } : {}), ...extra } },
      })
      const s = await startSidecar(loadConfig(env))
      running.push(s)
      return s
    },
    async close() {
      for (const s of running.splice(0)) await s.close()
      await toy.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

function measure(
  toy: ToySignal,
  from: number,
  refusedBefore: { messages: number; attachments: number; inboundBytes: number },
  path: PayloadPath,
  timedAtPace: boolean,
  ms: number,
  payloadBytes: number,
): BigRun {
  const sends = toy.sends().slice(from)
  const bytes = daemonBytes(sends)
  const refused = toy.refused()
  return {
    path,
    timedAtPace,
    ms,
    sends: sends.length,
    attachmentSends: sends.filter((s) => (s.attachments ?? 0) > 0).length,
    daemonBytes: bytes,
    payloadBytes,
    efficiency: payloadBytes / bytes,
    refused: {
      messages: refused.messages - refusedBefore.messages,
      attachments: refused.attachments - refusedBefore.attachments,
      inboundBytes: refused.inboundBytes - refusedBefore.inboundBytes,
    },
    pacedSeconds: pacedSeconds(sends.length),
  }
}

const wsUrl = (s: RunningSidecar): string => `ws://127.0.0.1:${s.port}`

async function connect(s: RunningSidecar, docId: string, doc: Y.Doc): Promise<BenchClient> {
  return connectBenchClient(wsUrl(s), docId, doc)
}

/**
 * Bob joins: Alice's sidecar (alone in the group at first) gets the paper from her page and is
 * restarted at the measured pacing knowing Bob is a member; then Bob's sidecar starts empty.
 */
async function benchJoin(
  path: PayloadPath,
  atPace: boolean,
  paper: { update: Uint8Array; text: string },
): Promise<BigRun> {
  const r = await rig(path, [ACCOUNTS.a], atPace)
  try {
    const pacing = atPace ? PACING_DEFAULT : PACING_OFF
    const setup = await r.start('a', PACING_OFF)
    const docA = new Y.Doc()
    const alice = await connect(setup, r.docId, docA)
    Y.applyUpdate(docA, paper.update)
    await untilSaved(alice.connection)
    await alice.connection.close()
    await setup.close()
    // Bob is accepted into the group; Alice's sidecar starts again and lists him as a member.
    const added = await fetch(new URL('/api/v1/rpc', r.toy.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'updateGroup',
        params: { account: ACCOUNTS.a, groupId: r.groupId, member: [ACCOUNTS.b] },
      }),
    })
    if (!added.ok) throw new Error(`updateGroup answered HTTP ${added.status}`)
    await r.start('a', pacing)
    // Alice's start-up messages (announcement, sync-request) go out before Bob exists.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    const before = r.toy.sends().length
    const refusedBefore = r.toy.refused()
    const started = performance.now()
    const bob = await r.start('b', pacing, { E2E_COL_SYNC_ON_START: '1' })
    const docB = new Y.Doc()
    const textB = docB.getText('text')
    const shown = untilDoc(docB, () => textB.length === paper.text.length && textB.toString() === paper.text)
    const client = await connect(bob, r.docId, docB)
    await shown
    const ms = performance.now() - started
    if (textB.toString() !== paper.text) throw new ConvergenceError('join: the newcomer differs from the paper')
    const run = measure(r.toy, before, refusedBefore, path, atPace, ms, paper.update.byteLength)
    await client.connection.close()
    return run
  } finally {
    await r.close()
  }
}

/** A paste of {@link PASTE_BYTES} of the paper's prose into a live two-member document. */
async function benchPaste(path: PayloadPath, atPace: boolean, prose: string): Promise<BigRun> {
  const r = await rig(path, [ACCOUNTS.a, ACCOUNTS.b], atPace)
  try {
    const pacing = atPace ? PACING_DEFAULT : PACING_OFF
    const [a, b] = await Promise.all([r.start('a', pacing), r.start('b', pacing)])
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const alice = await connect(a, r.docId, docA)
    const bobClient = await connect(b, r.docId, docB)
    await untilSaved(alice.connection)
    // Both sidecars' announcements and answers are out: the paste is the only traffic measured.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    const before = r.toy.sends().length
    const refusedBefore = r.toy.refused()
    const textB = docB.getText('text')
    const started = performance.now()
    const shown = untilDoc(docB, () => textB.length === prose.length)
    const updates: Uint8Array[] = []
    const onUpdate = (u: Uint8Array): void => void updates.push(u)
    docA.on('update', onUpdate)
    docA.getText('text').insert(0, prose)
    docA.off('update', onUpdate)
    await shown
    const ms = performance.now() - started
    if (textB.toString() !== prose) throw new ConvergenceError('paste: the peer differs from the paste')
    await untilSaved(alice.connection)
    const run = measure(
      r.toy,
      before,
      refusedBefore,
      path,
      atPace,
      ms,
      updates.reduce((n, u) => n + u.byteLength, 0),
    )
    await Promise.all([alice.connection.close(), bobClient.connection.close()])
    return run
  } finally {
    await r.close()
  }
}

/** Seconds at the default pacing: timed, or computed from the sends of a run with pacing off. */
const seconds = (run: BigRun): number => (run.timedAtPace ? run.ms / 1000 : run.pacedSeconds)
const f3 = (x: number): string => x.toFixed(3)

export async function benchBigPayloads({ quick }: { quick: boolean }): Promise<BigPayloadsResult> {
  const paper = paperDocument()
  const prose = paper.text.repeat(Math.ceil(PASTE_BYTES / paper.text.length)).slice(0, PASTE_BYTES)
  const joining = {
    attachment: await benchJoin('attachment', true, paper),
    text: await benchJoin('text', !quick, paper),
  }
  const paste = {
    bytes: PASTE_BYTES,
    attachment: await benchPaste('attachment', true, prose),
    text: await benchPaste('text', !quick, prose),
  }
  return {
    documentBytes: paper.update.byteLength,
    join: joining,
    paste,
    joinSends: joining.attachment.sends,
    joinMs: joining.attachment.ms,
    ratios: {
      joinSends: joining.attachment.sends / joining.text.sends,
      joinMs: joining.attachment.ms / 1000 / seconds(joining.text),
      pasteSends: paste.attachment.sends / paste.text.sends,
      pasteMs: paste.attachment.ms / 1000 / seconds(paste.text),
    },
    targets: {
      joinAtMost3Sends: joining.attachment.sends <= 3,
      joinAtMost5s: joining.attachment.ms <= 5000,
      noSendRefusedAtDefaultPace: [
        joining.attachment,
        paste.attachment,
        ...(quick ? [] : [joining.text, paste.text]),
      ].every((run) => run.refused.messages === 0 && run.refused.attachments === 0 && run.refused.inboundBytes === 0),
    },
  }
}

function row(label: string, run: BigRun): string {
  const time = run.timedAtPace
    ? `${(run.ms / 1000).toFixed(2)} s`
    : `${(run.ms / 1000).toFixed(1)} s pacing off; ≈ ${run.pacedSeconds.toFixed(0)} s at 1/s`
  return `| ${label} | ${run.sends} (${run.attachmentSends} with an attachment) | ${time} | ${run.daemonBytes.toLocaleString('en')} | ${run.efficiency.toFixed(2)} | ${run.refused.messages} / ${run.refused.attachments} / ${run.refused.inboundBytes} |`
}

export function printBigPayloads(r: BigPayloadsResult): void {
  console.log(
    `\n## 7. Big payloads at Signal's pace (toy enforcing 60/s-bucket per pair, 50 uploads and 128 MiB of inbound bytes per recipient; sidecars at 1/s, burst 5)\n`,
  )
  console.log(
    `document: the ${REPLAY_TRACE} trace's final state, ${r.documentBytes.toLocaleString('en')} bytes of Yjs update; paste: ${r.paste.bytes.toLocaleString('en')} characters of its prose\n`,
  )
  console.log(
    '| transfer | Signal sends | until the page shows it | bytes to the daemon | payload / daemon bytes | refused (messages / uploads / inbound bytes) |',
  )
  console.log('|---|---|---|---|---|---|')
  console.log(row('join, attachment path', r.join.attachment))
  console.log(row('join, text path', r.join.text))
  console.log(row('paste, attachment path', r.paste.attachment))
  console.log(row('paste, text path', r.paste.text))
  console.log(
    `\nratios attachment / text: join sends ${f3(r.ratios.joinSends)}, join time ${f3(r.ratios.joinMs)}; paste sends ${f3(r.ratios.pasteSends)}, paste time ${f3(r.ratios.pasteMs)}`,
  )
  console.log(`joinSends ${r.joinSends}, joinMs ${r.joinMs.toFixed(0)}`)
  console.log('targets:', r.targets)
}
