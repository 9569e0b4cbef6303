/**
 * Scale, group size with every member's sidecar running (issue #41, "Groups of 50"): `members` real
 * sidecar processes, one account each, in one group on the toy, at the default pacing (the toy
 * enforcing Signal's pace). Counted, each phase until the group is quiet (no send for `quietMs`),
 * every body classified by the envelope kinds it carries: every sidecar's sends from its start
 * (hellos, their answers, the start-up asks), and while a bench page connects to each; one edit
 * from member 0 (its sends, the group's, and the time until every other page holds it); each
 * receiver's process CPU per update over `updates` updates, and the group's sends after them; every
 * page editing once at the same moment; each sidecar's RSS after GC and its counters from
 * `/metrics` (announcements, sync-requests: the claims' asks of decisions/0024; the claim book is
 * kept in memory only, so it is not in the store); the last member's sidecar restarted in the
 * quiet group; then, with the sidecars stopped, each member's bounded tables read from its SQLite
 * store (author-book rows, received ids, sent ids, update log). */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspectDocument, openReplicaStore } from '@e2e-col/sidecar/internals'
import { decodeBody, decodeEnvelope, unpackBatch, type Envelope } from '@e2e-col/protocol'
import type { ToySignal } from '@e2e-col/toy-signal'
import * as Y from 'yjs'
import {
  connectBenchClient,
  PACING_DEFAULT,
  untilDoc,
  untilSaved,
  type BenchClient,
  type BenchGroup,
} from '../stack.ts'
import { mib, stat, type Stat } from '../stats.ts'
import { type Proc, scaleGroups, startSidecarProc, startToy, type Runtime } from './procs.ts'

export interface GroupSidecarsOptions {
  /** Sidecars started at once (then the next batch once those are ready). */
  readonly batch: number
  /** Bench pages connected, one per sidecar from member 0 on (all members by default). */
  readonly pages: number
  /** Updates from member 0 over which each receiver's CPU is averaged. */
  readonly updates: number
  /** No toy send (accepted or refused) for this long: the group is quiet. */
  readonly quietMs: number
  /** A phase stops waiting for quiet after this long (and says so). */
  readonly maxQuietWaitMs: number
}

export const GROUP_SIDECARS_DEFAULTS: GroupSidecarsOptions = {
  batch: 5,
  pages: Number.POSITIVE_INFINITY,
  updates: 10,
  quietMs: 15_000,
  maxQuietWaitMs: 6 * 60_000,
}

/** Sends in one phase: counted at the toy, until no send came for `quietMs`. */
export interface SendPhase {
  readonly sends: number
  readonly perMember: Stat
  /** Pace refusals at the toy in the phase (the sidecar sends those again). */
  readonly refused: number
  /** From the phase's start to its last send. */
  readonly lastSendMs: number
  readonly quiet: boolean
  /** Bodies by the envelope kinds they carry (`health+sync-request`: a batch of both). */
  readonly byKind: Readonly<Record<string, number>>
}

/** One member's rows and counters after the run. */
export interface MemberTables {
  readonly authorRows: number
  /** Accounts the author book holds client ids of. */
  readonly authorAccounts: number
  readonly receivedIds: number
  readonly sentIds: number
  readonly logRows: number
  readonly stateVectorClients: number
  readonly storeBytes: number
  readonly announcementsSent: number
  readonly announcementsReceived: number
  readonly syncRequestsSent: number
  readonly askedBack: number
  readonly dedupHits: number
}

export interface GroupSidecarsRun {
  readonly members: number
  readonly runtime: Runtime
  readonly options: Omit<GroupSidecarsOptions, 'pages'> & { readonly pages: number }
  readonly forkToReadyMs: Stat
  /** From the first fork to the last sidecar ready. */
  readonly allReadyMs: number
  readonly startup: SendPhase
  readonly pagesConnect: SendPhase
  readonly edit: {
    readonly editorSends: number
    readonly editorByKind: Readonly<Record<string, number>>
    /** Every account's sends from the edit until quiet. */
    readonly allSends: number
    readonly byKind: Readonly<Record<string, number>>
    /** Until each other page held it (`pages - 1` pages). */
    readonly arrivalMs: Stat
  }
  /** Every page edits once at the same moment: the sends until quiet, until every page holds all. */
  readonly everyoneEdits: SendPhase & { readonly allHoldMs: number }
  /** From the last of those updates until quiet (the members' quiet asks and their answers). */
  readonly afterUpdates: SendPhase
  /** The last member's sidecar stopped and started again in the quiet group (after the RSS and counters are read). */
  readonly restart: SendPhase & { readonly readyMs: number }
  /** Each receiver's sidecar CPU per update, µs (absent when the runtime gives no CPU reading). */
  readonly receiverCpuMicros?: ReceiverCpu
  readonly rss: Stat
  readonly heapUsed: Stat
  readonly tables: { readonly [K in keyof MemberTables]: Stat }
  /** Member 0's rows, for the detail. */
  readonly tablesOfMember0?: MemberTables
}

/** The author book's bound per document (apps/sidecar/src/document/document.ts AUTHOR_ROWS). */
export const AUTHOR_ROWS_BOUND = 8192
/** Received ids kept, E2E_COL_DEDUP_MAX_ENTRIES's default (apps/sidecar/src/config.ts). */
export const RECEIVED_IDS_BOUND = 100_000

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const memberNumber = (i: number): string => `+1555557${String(i).padStart(4, '0')}`

interface Member {
  readonly index: number
  readonly number: string
  readonly dir: string
  readonly proc: Proc
  readonly url: string
}

interface Activity {
  readonly sends: number
  readonly refused: number
}

const activityOf = (toy: ToySignal): Activity => ({ sends: toy.sends().length, refused: toy.refused().messages })

function kindsIn(env: Envelope, into: Set<string>): void {
  if (env.kind === 'batch') for (const inner of unpackBatch(env)) kindsIn(inner, into)
  else into.add(env.kind)
}

/** The envelope kinds one Signal body carries, sorted and joined (a chunk counts as `chunk`). */
export function bodyKinds(message: string): string {
  const kinds = new Set<string>()
  try {
    kindsIn(decodeEnvelope(decodeBody(message)), kinds)
  } catch {
    return 'undecodable'
  }
  return [...kinds].sort().join('+')
}

function countByKind(messages: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const m of messages) {
    const k = bodyKinds(m)
    counts[k] = (counts[k] ?? 0) + 1
  }
  return counts
}

/** Waits until the toy saw no send nor refusal for `quietMs` (at most `maxMs`); the phase's sends. */
async function sendPhase(
  toy: ToySignal,
  numbers: readonly string[],
  from: Activity,
  startedAt: number,
  o: Pick<GroupSidecarsOptions, 'quietMs' | 'maxQuietWaitMs'>,
): Promise<SendPhase> {
  let last = activityOf(toy)
  let lastChange = performance.now()
  let lastSend = from.sends === last.sends ? startedAt : lastChange
  while (performance.now() - lastChange < o.quietMs && performance.now() - startedAt < o.maxQuietWaitMs) {
    await sleep(250)
    const now = activityOf(toy)
    if (now.sends !== last.sends || now.refused !== last.refused) lastChange = performance.now()
    if (now.sends !== last.sends) lastSend = lastChange
    last = now
  }
  const sends = toy.sends().slice(from.sends)
  const counts = new Map(numbers.map((n) => [n, 0]))
  for (const s of sends) counts.set(s.account, (counts.get(s.account) ?? 0) + 1)
  return {
    sends: sends.length,
    perMember: stat([...counts.values()]),
    refused: last.refused - from.refused,
    lastSendMs: lastSend - startedAt,
    quiet: performance.now() - lastChange >= o.quietMs,
    byKind: countByKind(sends.map((x) => x.message)),
  }
}

type Layout = { toyUrl: string; docIds: readonly string[]; groups: readonly BenchGroup[]; dataDir: string }

/** Member `index`'s sidecar (its own account and store folder). */
async function startMember(runtime: Runtime, layout: Layout, number: string, index: number): Promise<Member> {
  const dir = join(layout.dataDir, `m${index}`)
  const { proc, url } = await startSidecarProc(runtime, 'a', layout, PACING_DEFAULT, {
    SIGNAL_CLI_ACCOUNT: number,
    E2E_COL_DATA_DIR: dir,
  })
  return { index, number, dir, proc, url }
}

/** Starts the members' sidecars `batch` at a time, each batch once the one before is ready. */
async function startMembers(
  runtime: Runtime,
  layout: Layout,
  numbers: readonly string[],
  batch: number,
  into: Member[],
): Promise<void> {
  for (let first = 0; first < numbers.length; first += batch)
    into.push(
      ...(await Promise.all(
        numbers.slice(first, first + batch).map((number, k) => startMember(runtime, layout, number, first + k)),
      )),
    )
}

/** The last member's sidecar stopped (its page closed first) and started again: the group's sends for it. */
async function restartLast(
  runtime: Runtime,
  layout: Layout,
  s: Started,
  pages: { client: BenchClient; doc: Y.Doc }[],
  o: GroupSidecarsOptions,
): Promise<SendPhase & { readonly readyMs: number }> {
  const last = s.members.at(-1)
  if (last === undefined) throw new Error('no member')
  const page = pages[last.index]
  if (page !== undefined) {
    await page.client.connection.close()
    s.clients.splice(s.clients.indexOf(page.client), 1)
  }
  const from = activityOf(s.toy)
  const started = performance.now()
  await last.proc.stop()
  const again = await startMember(runtime, layout, last.number, last.index)
  s.members[last.index] = again
  return { ...(await sendPhase(s.toy, s.numbers, from, started, o)), readyMs: again.proc.readyMs }
}

/** One edit from the first page: its sidecar's sends, and when each other page held it. */
async function oneEdit(
  toy: ToySignal,
  numbers: readonly string[],
  pages: readonly { client: BenchClient; doc: Y.Doc }[],
  o: GroupSidecarsOptions,
): Promise<GroupSidecarsRun['edit']> {
  const [editor, ...others] = pages
  if (editor === undefined) throw new Error('no page')
  const from = activityOf(toy)
  const text = editor.doc.getText('text')
  const started = performance.now()
  text.insert(0, 'one edit')
  const want = text.toString()
  const arrivals = await Promise.all(
    others.map(async (p) => {
      await untilDoc(p.doc, () => p.doc.getText('text').toString() === want, 'one edit at every page')
      return performance.now() - started
    }),
  )
  await untilSaved(editor.client.connection)
  const after = await sendPhase(toy, numbers, from, started, o)
  const editorBodies = toy
    .sends()
    .slice(from.sends)
    .filter((x) => x.account === numbers[0])
    .map((x) => x.message)
  const editorSends = editorBodies.length
  const editorByKind = countByKind(editorBodies)
  return { editorSends, editorByKind, allSends: after.sends, byKind: after.byKind, arrivalMs: stat(arrivals) }
}

/** Each receiver's CPU: per update (raw, and less its idle rate), and idle per second. */
export interface ReceiverCpu {
  readonly perUpdate: Stat
  readonly perUpdateLessIdle: Stat
  readonly idlePerSecond: Stat
}

const IDLE_WINDOW_MS = 5000

/**
 * Each receiver's CPU per update over `updates` updates from the first page, each awaited at every
 * page; its idle CPU over a quiet window just before, subtracted at the same rate.
 */
async function receiverCpu(
  members: readonly Member[],
  pages: readonly { client: BenchClient; doc: Y.Doc }[],
  updates: number,
): Promise<ReceiverCpu | undefined> {
  const [editor, ...others] = pages
  if (editor === undefined || updates <= 0) return undefined
  const receivers = members.slice(1)
  const cpuOf = (): Promise<number[]> => Promise.all(receivers.map((m) => m.proc.cpuMicros()))
  let idleFrom: number[]
  try {
    idleFrom = await cpuOf()
  } catch {
    return undefined // the tsx child answers no CPU reading
  }
  const idleAt = performance.now()
  await sleep(IDLE_WINDOW_MS)
  const before = await cpuOf()
  const idleRate = before.map((b, i) => (b - (idleFrom[i] ?? 0)) / (performance.now() - idleAt))
  const started = performance.now()
  const text = editor.doc.getText('text')
  for (let i = 0; i < updates; i++) {
    text.insert(text.length, 'x')
    const want = text.toString()
    await Promise.all(
      others.map((p) => untilDoc(p.doc, () => p.doc.getText('text').toString() === want, 'an update at every page')),
    )
    // The receivers without a page get it over the same Signal send; give them the moment after.
    await sleep(200)
  }
  const after = await cpuOf()
  const elapsed = performance.now() - started
  const used = after.map((a, i) => a - (before[i] ?? 0))
  return {
    perUpdate: stat(used.map((u) => u / updates)),
    perUpdateLessIdle: stat(used.map((u, i) => (u - (idleRate[i] ?? 0) * elapsed) / updates)),
    idlePerSecond: stat(idleRate.map((r) => r * 1000)),
  }
}

/** Every page inserts its own mark at once; when every page holds all of them, and the sends. */
async function everyoneEdits(
  toy: ToySignal,
  numbers: readonly string[],
  pages: readonly { client: BenchClient; doc: Y.Doc }[],
  o: GroupSidecarsOptions,
): Promise<GroupSidecarsRun['everyoneEdits']> {
  const from = activityOf(toy)
  const started = performance.now()
  const length = (pages[0]?.doc.getText('text').length ?? 0) + pages.reduce((n, _, i) => n + `<${i}>`.length, 0)
  pages.forEach((p, i) => p.doc.getText('text').insert(0, `<${i}>`))
  await Promise.all(
    pages.map((p) => untilDoc(p.doc, () => p.doc.getText('text').length === length, "every page's edit at every page")),
  )
  const allHoldMs = performance.now() - started
  await Promise.all(pages.map((p) => untilSaved(p.client.connection)))
  return { ...(await sendPhase(toy, numbers, from, started, o)), allHoldMs }
}

/** Sums a Prometheus sample's values (every label set matching `labels`). */
export function metricValue(text: string, name: string, labels = ''): number {
  let sum = 0
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue
    if (labels !== '' && !line.includes(labels)) continue
    sum += Number(line.slice(line.lastIndexOf(' ') + 1)) || 0
  }
  return sum
}

type Counters = Pick<
  MemberTables,
  'announcementsSent' | 'announcementsReceived' | 'syncRequestsSent' | 'askedBack' | 'dedupHits'
>

async function countersOf(url: string): Promise<Counters> {
  const text = await (await fetch(`${url.replace(/^ws/, 'http')}/metrics`)).text()
  return {
    announcementsSent: metricValue(text, 'e2e_col_capability_announcements_total', 'direction="sent"'),
    announcementsReceived: metricValue(text, 'e2e_col_capability_announcements_total', 'direction="received"'),
    syncRequestsSent: metricValue(text, 'e2e_col_replica_messages_sent_total', 'kind="sync-request"'),
    askedBack: metricValue(text, 'e2e_col_replica_sync_total', 'outcome="asked-back"'),
    dedupHits: metricValue(text, 'e2e_col_dedup_hits_total'),
  }
}

/** A stopped member's rows, read from its store read-only. */
function storeRows(dir: string, docId: string): Omit<MemberTables, keyof Counters> {
  const store = openReplicaStore(dir, { readonly: true })
  try {
    const has = (table: string): boolean =>
      store.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined
    const count = (sql: string, ...args: string[]): number =>
      (store.db.prepare<string[], { n: number }>(sql).get(...args)?.n ?? 0) as number
    const authors = has('authors')
    return {
      authorRows: authors ? count('SELECT count(*) AS n FROM authors WHERE doc_id = ?', docId) : 0,
      authorAccounts: authors ? count('SELECT count(DISTINCT number) AS n FROM authors WHERE doc_id = ?', docId) : 0,
      receivedIds: has('received_ids') ? count('SELECT count(*) AS n FROM received_ids') : 0,
      sentIds: store.sentIds.count(docId),
      logRows: store.logSize(docId).rows,
      stateVectorClients: store.logSize(docId).rows > 0 ? inspectDocument(dir, docId).stateVector.clients : 0,
      storeBytes: store.fileBytes(),
    }
  } finally {
    store.close()
  }
}

function statsOf(rows: readonly MemberTables[]): GroupSidecarsRun['tables'] {
  const keys = Object.keys(rows[0] ?? {}) as (keyof MemberTables)[]
  return Object.fromEntries(keys.map((k) => [k, stat(rows.map((r) => r[k]))])) as GroupSidecarsRun['tables']
}

interface Started {
  readonly toy: ToySignal
  readonly numbers: readonly string[]
  readonly docId: string
  readonly members: Member[]
  readonly clients: BenchClient[]
}

/** The run once the toy is up: start, pages, edit, CPU, memory and counters (the sidecars still running). */
async function measure(
  runtime: Runtime,
  s: Started,
  dataDir: string,
  groups: readonly BenchGroup[],
  o: GroupSidecarsOptions,
) {
  const { toy, numbers, docId, members } = s
  const forkedAt = performance.now()
  const startFrom = activityOf(toy)
  const layout: Layout = { toyUrl: toy.url, docIds: [docId], groups, dataDir }
  await startMembers(runtime, layout, numbers, o.batch, members)
  const allReadyMs = performance.now() - forkedAt
  const startup = await sendPhase(toy, numbers, startFrom, forkedAt, o)
  const pagesFrom = activityOf(toy)
  const pagesAt = performance.now()
  const pages: { client: BenchClient; doc: Y.Doc }[] = []
  for (const m of members.slice(0, Math.min(o.pages, members.length))) {
    const doc = new Y.Doc()
    const client = await connectBenchClient(m.url, docId, doc)
    s.clients.push(client)
    pages.push({ client, doc })
  }
  const pagesConnect = await sendPhase(toy, numbers, pagesFrom, pagesAt, o)
  const edit = await oneEdit(toy, numbers, pages, o)
  const receiverCpuMicros = await receiverCpu(members, pages, o.updates)
  const afterUpdates = await sendPhase(toy, numbers, activityOf(toy), performance.now(), o)
  const everyone = await everyoneEdits(toy, numbers, pages, o)
  const memory = await Promise.all(members.map((m) => m.proc.memory()))
  const counters = await Promise.all(members.map((m) => countersOf(m.url)))
  const restart = await restartLast(runtime, layout, s, pages, o)
  return {
    forkToReadyMs: stat(members.map((m) => m.proc.readyMs)),
    allReadyMs,
    startup,
    pagesConnect,
    edit,
    everyoneEdits: everyone,
    afterUpdates,
    restart,
    ...(receiverCpuMicros === undefined ? {} : { receiverCpuMicros }),
    rss: stat(memory.map((m) => m.rss)),
    heapUsed: stat(memory.map((m) => m.heapUsed)),
    counters,
    pageCount: pages.length,
  }
}

async function stopAll(s: Started): Promise<void> {
  for (const c of s.clients.splice(0)) await c.connection.close()
  for (let first = 0; first < s.members.length; first += 10)
    await Promise.all(s.members.slice(first, first + 10).map((m) => m.proc.stop()))
}

/** `members` sidecars in one group (member 0 edits); see the file's comment for what is counted. */
export async function groupOfSidecars(
  runtime: Runtime,
  members: number,
  options: Partial<GroupSidecarsOptions> = {},
): Promise<GroupSidecarsRun> {
  const o = { ...GROUP_SIDECARS_DEFAULTS, ...options }
  const numbers = Array.from({ length: members }, (_, i) => memberNumber(i))
  const { docIds, groups } = scaleGroups(1, numbers)
  const docId = docIds[0] ?? ''
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-group-sidecars-'))
  const toy = await startToy(numbers, groups, true)
  const s: Started = { toy, numbers, docId, members: [], clients: [] }
  try {
    const m = await measure(runtime, s, dataDir, groups, o)
    await stopAll(s)
    const rows = s.members.map((member, i) => ({ ...storeRows(member.dir, docId), ...(m.counters[i] as Counters) }))
    const { counters: _counters, pageCount, ...rest } = m
    return {
      members,
      runtime,
      options: { ...o, pages: pageCount },
      ...rest,
      tables: statsOf(rows),
      ...(rows[0] === undefined ? {} : { tablesOfMember0: rows[0] }),
    }
  } finally {
    await stopAll(s)
    await toy.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const yes = (ok: boolean): string => (ok ? 'met' : '**missed**')
const sec = (millis: number): string => `${(millis / 1000).toFixed(1)} s`
const range = (x: Stat, f: (n: number) => string = String): string => `${f(x.median)} (${f(x.min)}–${f(x.max)})`
const kinds = (byKind: Readonly<Record<string, number>>): string =>
  Object.entries(byKind)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')
const phase = (p: SendPhase): string =>
  `${p.sends} (per member ${range(p.perMember)}; ${kinds(p.byKind)}), last after ${sec(p.lastSendMs)}${p.quiet ? '' : ', **not quiet**'}${p.refused > 0 ? `, ${p.refused} refused by the pace` : ''}`

const msOf = (n: number): string => `${(n / 1000).toFixed(2)} ms`
const cpu = (run: GroupSidecarsRun): string => {
  const c = run.receiverCpuMicros
  if (c === undefined) return '–'
  return `${range(c.perUpdate, msOf)}; less idle ${range(c.perUpdateLessIdle, msOf)}; idle ${range(c.idlePerSecond, msOf)} per s (${run.options.updates} updates)`
}

/** Bodies carrying a `kind` envelope (alone or batched). */
const carrying = (byKind: Readonly<Record<string, number>>, kind: string): number =>
  Object.entries(byKind).reduce((n, [k, c]) => (k.split('+').includes(kind) ? n + c : n), 0)

/** The run as the docs/performance.md rows print it (markdown tables and bound lines). */
export function printGroupSidecars(run: GroupSidecarsRun): string {
  const t = run.tables
  const out: string[] = []
  out.push(
    `\n### Group of ${run.members} sidecars (${run.runtime}, default pacing, ${run.options.pages} pages, batches of ${run.options.batch})\n`,
    '| members | fork to ready: median (min–max), all ready | sends from start until quiet: total (per member) | sends while the pages connect | one edit: editor sends / all sends / all other pages hold it: median (min–max) | receiver CPU per update: median (min–max); less the idle rate; idle CPU per second | RSS after GC: median (min–max) |',
    '|---|---|---|---|---|---|---|',
    `| ${run.members} | ${range(run.forkToReadyMs, sec)}, ${sec(run.allReadyMs)} | ${phase(run.startup)} | ${phase(run.pagesConnect)} | ${run.edit.editorSends} / ${run.edit.allSends} (${kinds(run.edit.byKind)}) / ${range(run.edit.arrivalMs, (n) => `${n.toFixed(0)} ms`)} | ${cpu(run)} | ${range(run.rss, (n) => `${mib(n)} MiB`)} |`,
    `\nAfter the ${run.options.updates} updates of the CPU column, until quiet: ${phase(run.afterUpdates)}.`,
    `\nEvery page edits once at the same moment: every page holds all ${run.options.pages} edits after ${sec(run.everyoneEdits.allHoldMs)}; sends until quiet ${phase(run.everyoneEdits)}.`,
    `\nOne member's sidecar restarted in the quiet group (fork to ready ${sec(run.restart.readyMs)}): sends until quiet ${phase(run.restart)}.`,
    '\nPer member after the run (median (min–max) over the members; the store read with the sidecars stopped, the counters from `/metrics` before):\n',
    '| author-book rows (accounts) | received ids | sent ids | update log rows | state-vector clients | store bytes | announcements sent / received | sync-requests sent (claims and start asks) | asked back | dedup hits |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| ${range(t.authorRows)} (${range(t.authorAccounts)}) | ${range(t.receivedIds)} | ${range(t.sentIds)} | ${range(t.logRows)} | ${range(t.stateVectorClients)} | ${range(t.storeBytes)} | ${range(t.announcementsSent)} / ${range(t.announcementsReceived)} | ${range(t.syncRequestsSent)} | ${range(t.askedBack)} | ${range(t.dedupHits)} |`,
    '',
    `- one edit is carried by one Signal send of its sidecar: ${yes(carrying(run.edit.editorByKind, 'update') === 1)} (its sidecar sent ${kinds(run.edit.editorByKind)}; all members ${run.edit.allSends} until quiet)`,
    `- sync traffic after one edit, in the group: ${carrying(run.edit.byKind, 'sync-request')} bodies with a sync-request, ${carrying(run.edit.byKind, 'sync-response')} with a sync-response (docs/sidecar.md §8.4: "per burst of editing, about one \`sync-request\` … and one \`sync-response\` in the group"); after the ${run.options.updates} updates: ${carrying(run.afterUpdates.byKind, 'sync-request')} and ${carrying(run.afterUpdates.byKind, 'sync-response')}`,
    `- one member's restart costs the group ${run.restart.sends} sends (${carrying(run.restart.byKind, 'health')} with a health announcement) for ${run.members - 1} other members`,
    `- author book ≤ ${AUTHOR_ROWS_BOUND.toLocaleString('en')} rows per document (decisions/0024, §12): ${yes(t.authorRows.max <= AUTHOR_ROWS_BOUND)} (most ${t.authorRows.max})`,
    `- received ids ≤ ${RECEIVED_IDS_BOUND.toLocaleString('en')} (E2E_COL_DEDUP_MAX_ENTRIES, a day's age): ${yes(t.receivedIds.max <= RECEIVED_IDS_BOUND)} (most ${t.receivedIds.max})`,
    `- start-up sends per member (hello, the answers to later members' hellos, the start ask): ${range(run.startup.perMember)}; ${(run.startup.sends / run.members).toFixed(1)} on average, ${run.startup.sends} in all for ${run.members} members`,
  )
  return out.join('\n')
}
