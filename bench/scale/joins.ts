/**
 * Scale, joins (issue #41): "a member added to a 10 MB document has it in ≤ 10 s at the default
 * pacing on the toy (snapshot as attachment plus the missing updates), and a relinked device the
 * same." The sidecar runs as installed (procs.ts) at the default pacing (1/s, burst 5), the toy
 * enforcing Signal's pace:
 * - member added: Alice's sidecar holds the document (put in through a page while she was alone
 *   in the group); Bob is accepted into the group, Alice's sidecar starts again listing him (as
 *   section 7's join does), and once its start-up sync-request is out Bob's sidecar starts with an
 *   empty store. `joinMs` runs from Bob's sidecar's fork until his page holds the whole document.
 * - relinked device: then Alice's sidecar stops, its data folder is removed (a device linked again
 *   on a new computer, or after Signal dropped the old link, starts with an empty store) and it
 *   starts again; its start-up sync-request is answered by Bob's sidecar. `joinMs` runs from that
 *   fork until Alice's fresh page holds the document.
 * The baselines: a fresh provider syncing the same document from y-websocket and Hocuspocus.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeBody, decodeEnvelope, unpackBatch, type Envelope } from '@e2e-col/protocol'
import { seededRandom } from '@e2e-col/sync/testing'
import type { SendRecord, ToySignal } from '@e2e-col/toy-signal'
import * as Y from 'yjs'
import {
  ACCOUNTS,
  connectBenchClient,
  PACING_DEFAULT,
  PACING_OFF,
  untilDoc,
  untilSaved,
  type BenchGroup,
  type Pacing,
} from '../stack.ts'
import { REPLAY_TRACE } from '../trace-replay.ts'
import { applyPatches, loadTrace } from '../traces.ts'
import { baselineLargeDoc } from './large-doc.ts'
import { type Proc, startSidecarProc, startToy, type Runtime } from './procs.ts'

export interface JoinRun {
  readonly system: string
  readonly scenario: string
  /** Y.encodeStateAsUpdate of the document. */
  readonly docBytes: number
  /** From the joining sidecar's fork (or the fresh provider's connect) until its page holds the document. */
  readonly joinMs: number
  /** e2e-col: the joining sidecar's fork to ready, part of `joinMs`. */
  readonly readyMs?: number
  /** e2e-col: Signal sends by every sidecar during the join, and how many carried an attachment. */
  readonly sends?: number
  readonly attachmentSends?: number
  /** e2e-col: bytes handed to the daemon, text bodies plus decoded attachment bytes. */
  readonly daemonBytes?: number
  /** e2e-col: what Signal's pace refused during the join (messages / uploads / inbound bytes). */
  readonly refused?: { readonly messages: number; readonly attachments: number; readonly inboundBytes: number }
  /** Set when the page never held the document within the run's bound. */
  readonly error?: string
}

/** The document a member joins: its encoded state and its text. */
export interface JoinDoc {
  readonly update: Uint8Array
  readonly text: string
  readonly buildMs: number
}

/** A fixed client id and seed: the same document, byte for byte, on every run. */
const DOC_CLIENT_ID = 0x2e2ec01
const PASTE_CHARS = 4096

/**
 * The automerge-paper trace typed once (259,778 keystrokes, its deletions included), then pieces
 * of its prose pasted at seeded places, {@link PASTE_CHARS} characters each, until the encoded
 * state reaches about `bytes`: a long document written by typing and pasting.
 */
export function buildJoinDoc(bytes: number): JoinDoc {
  const started = performance.now()
  const trace = loadTrace(REPLAY_TRACE)
  const doc = new Y.Doc()
  doc.clientID = DOC_CLIENT_ID
  const text = doc.getText('text')
  for (const txn of trace.txns) doc.transact(() => applyPatches(text, txn.patches))
  const prose = trace.endContent
  const random = seededRandom(41)
  // A paste of n ASCII characters adds about n bytes (one item each, a few bytes of header).
  let missing = bytes - Y.encodeStateAsUpdate(doc).byteLength
  for (let from = 0; missing > 0; from = (from + PASTE_CHARS) % (prose.length - PASTE_CHARS)) {
    const piece = prose.slice(from, from + Math.min(PASTE_CHARS, missing))
    text.insert(Math.floor(random() * (text.length + 1)), piece)
    missing -= piece.length + 8
  }
  const result = { update: Y.encodeStateAsUpdate(doc), text: text.toString(), buildMs: performance.now() - started }
  doc.destroy()
  return result
}

/** The kinds of the envelopes one body carries (a batch unpacked; a chunk is `chunk`). */
function kindsOf(message: string): Envelope['kind'][] {
  try {
    const env = decodeEnvelope(decodeBody(message))
    return env.kind === 'batch' ? unpackBatch(env).map((e) => e.kind) : [env.kind]
  } catch {
    return []
  }
}

const POLL_MS = 50

/**
 * Resolves once the toy has a send by `account` from index `from` on that carries one of `kinds`,
 * made at `notBefore` (epoch ms) or later.
 */
async function untilSent(
  toy: ToySignal,
  account: string,
  kinds: readonly Envelope['kind'][],
  { from, notBefore = 0, timeoutMs }: { from: number; notBefore?: number; timeoutMs: number },
): Promise<void> {
  const deadline = performance.now() + timeoutMs
  const found = (): boolean =>
    toy
      .sends()
      .slice(from)
      .some(
        (s) => s.account === account && s.timestamp >= notBefore && kindsOf(s.message).some((k) => kinds.includes(k)),
      )
  while (!found()) {
    if (performance.now() > deadline) {
      const sent = toy
        .sends()
        .slice(from)
        .map((s) => `${s.account}: ${kindsOf(s.message).join(',')}`)
      throw new Error(`waited ${timeoutMs} ms for a ${kinds.join(' or ')} from ${account}; sent: ${sent.join('; ')}`)
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/** `member` accepted into the group, as Alice's `updateGroup` does it. */
async function addMember(toy: ToySignal, groupId: string, member: string): Promise<void> {
  const added = await fetch(new URL('/api/v1/rpc', toy.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'updateGroup',
      params: { account: ACCOUNTS.a, groupId, member: [member] },
    }),
  })
  if (!added.ok) throw new Error(`updateGroup answered HTTP ${added.status}`)
}

/** One document in one group, Alice alone in it at first; the toy enforcing Signal's pace. */
interface JoinRig {
  readonly toy: ToySignal
  readonly docId: string
  readonly groupId: string
  readonly dataDir: string
  start(side: 'a' | 'b', pacing: Pacing, extra?: Readonly<Record<string, string>>): Promise<{ proc: Proc; url: string }>
  stop(side: 'a' | 'b'): Promise<void>
  close(): Promise<void>
}

async function joinRig(
  runtime: Runtime,
  env: Readonly<Record<string, string>>,
  phoneOnly: readonly string[],
): Promise<JoinRig> {
  const docId = randomUUID()
  const groupId = createHash('sha256').update(`join ${docId}`).digest('base64')
  const groups: BenchGroup[] = [{ name: 'join', members: [ACCOUNTS.a, ...phoneOnly], id: groupId }]
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-scale-join-'))
  const toy = await startToy([ACCOUNTS.a, ACCOUNTS.b], groups, true)
  const procs = new Map<'a' | 'b', Proc>()
  const stop = async (side: 'a' | 'b'): Promise<void> => {
    await procs.get(side)?.stop()
    procs.delete(side)
  }
  return {
    toy,
    docId,
    groupId,
    dataDir,
    async start(side, pacing, extra = {}) {
      const layout = { toyUrl: toy.url, docIds: [docId], groups, dataDir }
      const started = await startSidecarProc(runtime, side, layout, pacing, { ...env, ...extra })
      procs.set(side, started.proc)
      return started
    },
    stop,
    async close() {
      await stop('b')
      await stop('a')
      await toy.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * Alice's sidecar gets the document from her page (pacing off, and the bench's frame bound: the
 * setup is not measured).
 */
async function putDocument(rig: JoinRig, doc: JoinDoc): Promise<void> {
  const { url } = await rig.start('a', PACING_OFF, { E2E_COL_MAX_FRAME_BYTES: String(64 * 1024 * 1024) })
  const author = new Y.Doc()
  const client = await connectBenchClient(url, rig.docId, author)
  Y.applyUpdate(author, doc.update)
  await untilSaved(client.connection)
  await client.connection.close()
  author.destroy()
  await rig.stop('a')
}

/** Sends from index `from` on: count, attachment sends, bytes to the daemon. */
function sendFigures(sends: readonly SendRecord[]): Pick<JoinRun, 'sends' | 'attachmentSends' | 'daemonBytes'> {
  return {
    sends: sends.length,
    attachmentSends: sends.filter((s) => (s.attachments ?? 0) > 0).length,
    daemonBytes: sends.reduce((n, s) => n + Buffer.byteLength(s.message) + (s.attachmentBytes ?? 0), 0),
  }
}

/**
 * Starts `side`'s sidecar with an empty store and a page on it: the time from its fork until the
 * page holds `doc`, the Signal sends meanwhile, or the error when it never did within `timeoutMs`.
 */
async function timedJoin(
  rig: JoinRig,
  side: 'a' | 'b',
  doc: JoinDoc,
  labels: { system: string; scenario: string },
  timeoutMs: number,
): Promise<JoinRun> {
  const before = rig.toy.sends().length
  const refusedBefore = rig.toy.refused()
  const page = new Y.Doc()
  const text = page.getText('text')
  const startedAt = Date.now()
  const started = performance.now()
  let readyMs: number | undefined
  let error: string | undefined
  try {
    const { proc, url } = await rig.start(side, PACING_DEFAULT)
    readyMs = proc.readyMs
    const shown = untilDoc(page, () => text.length === doc.text.length, `the ${labels.scenario} page`, timeoutMs)
    const client = await connectBenchClient(url, rig.docId, page)
    await shown.finally(() => client.connection.close())
    if (text.toString() !== doc.text) error = 'the page differs from the document'
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught)
  }
  const joinMs = performance.now() - started
  page.destroy()
  for (const s of rig.toy.sends().slice(before))
    progress(
      `  +${s.timestamp - startedAt} ms ${s.account === ACCOUNTS.a ? 'Alice' : 'Bob'}: ${kindsOf(s.message).join(',')}${s.attachmentBytes === undefined ? '' : ` + attachment ${s.attachmentBytes} B`}`,
    )
  const refused = rig.toy.refused()
  return {
    ...labels,
    docBytes: doc.update.byteLength,
    joinMs,
    ...(readyMs === undefined ? {} : { readyMs }),
    ...sendFigures(rig.toy.sends().slice(before)),
    refused: {
      messages: refused.messages - refusedBefore.messages,
      attachments: refused.attachments - refusedBefore.attachments,
      inboundBytes: refused.inboundBytes - refusedBefore.inboundBytes,
    },
    ...(error === undefined ? {} : { error }),
  }
}

export interface JoinOptions {
  /** The document (else built for `bytes`). */
  readonly doc?: JoinDoc
  /** Extra sidecar variables (on every sidecar of the run), and a label naming them. */
  readonly env?: Readonly<Record<string, string>>
  readonly label?: string
  /** How long a join may take before it is reported failed. */
  readonly timeoutMs?: number
  /** Then Alice's device is linked again at once, a third join (the answerer's per-asker spacing). */
  readonly relinkAgain?: boolean
  /** Members of the group with no sidecar (a phone only): they rank among the answerers. */
  readonly phoneOnly?: readonly string[]
}

const STARTUP_WAIT_MS = 30_000
const QUIET_WAIT_MS = 60_000
/** The quiet period before that ask: max(2 s, 20 × E2E_COL_SYNC_DELAY_MAX_MS), 6 s by default. */
const QUIET_MIN_MS = 6000

/** Progress on stderr when E2E_COL_BENCH_VERBOSE is set. */
function progress(line: string): void {
  if ((process.env['E2E_COL_BENCH_VERBOSE'] ?? '') !== '') console.error(`[joins ${new Date().toISOString()}] ${line}`)
}

/** Both joins on the sidecar as installed: a member added, then Alice's device relinked. */
export async function sidecarJoin(runtime: Runtime, bytes: number, options: JoinOptions = {}): Promise<JoinRun[]> {
  const doc = options.doc ?? buildJoinDoc(bytes)
  const timeoutMs = options.timeoutMs ?? 120_000
  const system = `e2e-col, sidecar under ${runtime}${options.label === undefined ? '' : `, ${options.label}`}`
  const rig = await joinRig(runtime, options.env ?? {}, options.phoneOnly ?? [])
  try {
    progress("putting the document into Alice's sidecar")
    await putDocument(rig, doc)
    progress('document in; adding Bob')
    // Bob is accepted into the group; Alice's sidecar starts again and lists him as a member. Her
    // start-up sync-request goes out before Bob exists, so it is not part of the join.
    await addMember(rig.toy, rig.groupId, ACCOUNTS.b)
    const mark = rig.toy.sends().length
    await rig.start('a', PACING_DEFAULT)
    // With other members, changes her page left unsent go first, and the request may ride in their attachment.
    await untilSent(rig.toy, ACCOUNTS.a, ['sync-request', 'attachment'], {
      from: mark,
      timeoutMs: STARTUP_WAIT_MS,
    }).catch((error: unknown) =>
      progress(`Alice's start-up request not seen, Bob joins all the same: ${String(error).slice(0, 300)}`),
    )
    progress('Bob joins')
    const added = await timedJoin(rig, 'b', doc, { system, scenario: 'member added (Bob, empty store)' }, timeoutMs)
    if (added.error !== undefined) return [added]
    progress(`member added: ${added.joinMs.toFixed(0)} ms; stopping Alice's sidecar`)
    // Alice's computer is linked again with an empty store; Bob's sidecar holds the document. Her
    // old sidecar stops at once; the relink comes once the group is quiet: after Bob's one ask
    // for what he might have missed (6–12 s after his document changed, answered by nobody), so
    // no request of the old device holds Bob's answer back (one request per asker and bound).
    const sends = rig.toy.sends()
    // Bob's document changed after the answer was sent: his ask comes the quiet period after that.
    const answer = sends.reduce((last, s, i) => (s.account === ACCOUNTS.a && (s.attachments ?? 0) > 0 ? i : last), -1)
    const notBefore = (sends[answer]?.timestamp ?? 0) + QUIET_MIN_MS
    const quiet = { from: Math.max(0, answer), notBefore, timeoutMs: QUIET_WAIT_MS }
    await rig.stop('a')
    await untilSent(rig.toy, ACCOUNTS.b, ['sync-request'], quiet).catch((error: unknown) =>
      progress(`no quiet-period ask from Bob: ${String(error)}`),
    )
    progress("Bob's quiet-period ask sent; Alice's device relinks")
    rmSync(join(rig.dataDir, 'a'), { recursive: true, force: true })
    const relinked = await timedJoin(
      rig,
      'a',
      doc,
      { system, scenario: "relinked device (Alice's store emptied; Bob's sidecar answers)" },
      timeoutMs,
    )
    if (options.relinkAgain !== true || relinked.error !== undefined) return [added, relinked]
    // Linked again, soon after: Bob took a request from Alice's account whose answer was the whole
    // document, and holds her next one back for that answer's fallback bound (answer-rule.ts).
    await rig.stop('a')
    rmSync(join(rig.dataDir, 'a'), { recursive: true, force: true })
    const again = await timedJoin(
      rig,
      'a',
      doc,
      { system, scenario: "relinked again at once (Bob answered Alice's account a moment ago)" },
      timeoutMs,
    )
    return [added, relinked, again]
  } finally {
    await rig.close()
  }
}

/** A fresh provider syncing the same document from a baseline server (no Signal, no pace). */
export async function baselineJoin(
  system: 'y-websocket' | 'Hocuspocus',
  bytes: number,
  given?: JoinDoc,
): Promise<JoinRun> {
  const doc = given ?? buildJoinDoc(bytes)
  const run = await baselineLargeDoc(system, { copies: 1, operations: 0, ...doc })
  return { system, scenario: 'fresh client', docBytes: doc.update.byteLength, joinMs: run.openMs }
}

const yes = (ok: boolean): string => (ok ? 'met' : '**missed**')
const sec = (ms: number): string => `${(ms / 1000).toFixed(2)} s`
const dash = (n: number | undefined): string => (n === undefined ? '–' : n.toLocaleString('en'))

function joinRow(r: JoinRun): string {
  const time = r.error === undefined ? sec(r.joinMs) : `failed after ${sec(r.joinMs)}: ${r.error}`
  const sends = r.sends === undefined ? '–' : `${r.sends} (${r.attachmentSends ?? 0} with an attachment)`
  const refused =
    r.refused === undefined ? '–' : `${r.refused.messages} / ${r.refused.attachments} / ${r.refused.inboundBytes}`
  const ready = r.readyMs === undefined ? '–' : sec(r.readyMs)
  return `| ${r.system} | ${r.scenario} | ${r.docBytes.toLocaleString('en')} B | ${time} | ${ready} | ${sends} | ${dash(r.daemonBytes)} | ${refused} |`
}

/** The runs as a markdown table, then whether each e2e-col join met the target. */
export function printJoins(runs: readonly JoinRun[], targetMs = 10_000): string {
  const lines = [
    '| system | scenario | document (Yjs encoding) | until the page holds it | of it fork to ready | Signal sends | bytes to the daemon | refused (messages / uploads / inbound bytes) |',
    '|---|---|---|---|---|---|---|---|',
    ...runs.map(joinRow),
    '',
  ]
  for (const r of runs.filter((run) => run.sends !== undefined)) {
    const ok = r.error === undefined && r.joinMs <= targetMs
    lines.push(
      `- ${r.scenario}, ${r.system}: in ≤ ${targetMs / 1000} s ${yes(ok)} (${r.error === undefined ? sec(r.joinMs) : 'failed'})`,
    )
  }
  return lines.join('\n')
}
