/**
 * Scale, group size: a group of `members` numbers (Alice's and Bob's sidecars run; the others are
 * members without a sidecar on this toy). Counted: Alice's Signal sends for one edit; Bob's CPU
 * per received update (his sidecar process's user + system time over `updates` edits, pacing off),
 * against the same in a group of two in the same run; Alice's sends while `pages` pages on her
 * sidecar move their presence for `presenceMs`, against the pace's bound (burst + rate × time).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Y from 'yjs'
import {
  ACCOUNTS,
  connectBenchClient,
  PACING_DEFAULT,
  PACING_OFF,
  untilDoc,
  untilSaved,
  type BenchClient,
  type Pacing,
} from '../stack.ts'
import { type Proc, scaleGroups, startSidecarProc, startToy, type Runtime } from './procs.ts'

export interface GroupRun {
  readonly members: number
  /** Alice's sends for one edit on an idle document. */
  readonly sendsPerEdit: number
  /** Bob's sidecar CPU per received update, µs. */
  readonly receiverCpuMicrosPerUpdate: number
  readonly updates: number
  /** Presence (default pacing only). */
  readonly presence?: {
    readonly pages: number
    readonly seconds: number
    readonly sends: number
    readonly bound: number
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

function memberNumbers(members: number): string[] {
  const others = Array.from({ length: Math.max(0, members - 2) }, (_, i) => `+1555556${String(i).padStart(4, '0')}`)
  return [ACCOUNTS.a, ACCOUNTS.b, ...others]
}

export async function groupRun(
  runtime: Runtime,
  members: number,
  { updates, pages, presenceMs }: { updates: number; pages: number; presenceMs: number },
): Promise<GroupRun> {
  const pacing: Pacing = pages > 0 ? PACING_DEFAULT : PACING_OFF
  const { docIds, groups } = scaleGroups(1, memberNumbers(members))
  const docId = docIds[0] ?? ''
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-scale-'))
  const toy = await startToy([ACCOUNTS.a, ACCOUNTS.b], groups, pages > 0 ? true : 'count')
  const procs: Proc[] = []
  const clients: BenchClient[] = []
  try {
    const layout = { toyUrl: toy.url, docIds, groups, dataDir }
    const a = await startSidecarProc(runtime, 'a', layout, pacing)
    procs.push(a.proc)
    const b = await startSidecarProc(runtime, 'b', layout, pacing)
    procs.push(b.proc)
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const alice = await connectBenchClient(a.url, docId, docA)
    clients.push(alice, await connectBenchClient(b.url, docId, docB))
    await untilSaved(alice.connection)
    await sleep((pacing.burst * 1000) / pacing.sendsPerSecond)
    const sendsByA = (): number => toy.sends().filter((s) => s.account === ACCOUNTS.a).length
    const textA = docA.getText('text')
    const textB = docB.getText('text')
    const before = sendsByA()
    textA.insert(0, 'one edit')
    await untilDoc(docB, () => textB.toString() === textA.toString(), 'one edit at Bob')
    await untilSaved(alice.connection)
    const sendsPerEdit = sendsByA() - before
    // Bob's CPU per update: each edit waits for the last to arrive (one update each).
    const cpuBefore = await b.proc.cpuMicros()
    for (let i = 0; i < updates; i++) {
      textA.insert(textA.length, 'x')
      const want = textA.toString()
      await untilDoc(docB, () => textB.toString() === want, 'an update at Bob')
    }
    const receiverCpuMicrosPerUpdate = ((await b.proc.cpuMicros()) - cpuBefore) / updates
    if (pages === 0) return { members, sendsPerEdit, receiverCpuMicrosPerUpdate, updates }
    const presence = await presenceFrom(a.url, docId, pages, presenceMs, sendsByA, pacing, clients)
    return { members, sendsPerEdit, receiverCpuMicrosPerUpdate, updates, presence }
  } finally {
    for (const c of clients.splice(0)) await c.connection.close()
    for (let p = procs.pop(); p !== undefined; p = procs.pop()) await p.stop()
    await toy.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** `pages` pages on one sidecar, each moving its cursor every 500 ms for `ms`: the sidecar's sends then. */
async function presenceFrom(
  url: string,
  docId: string,
  pages: number,
  ms: number,
  sendsByA: () => number,
  pacing: Pacing,
  clients: BenchClient[],
): Promise<NonNullable<GroupRun['presence']>> {
  const open: BenchClient[] = []
  for (let i = 0; i < pages; i++) {
    const client = await connectBenchClient(url, docId, new Y.Doc(), { awareness: {} })
    open.push(client)
    clients.push(client)
  }
  // The greetings of the connects go first; then the counted window.
  await sleep((pacing.burst * 1000) / pacing.sendsPerSecond)
  const before = sendsByA()
  const started = performance.now()
  for (let tick = 0; performance.now() - started < ms; tick++) {
    for (const c of open) c.connection.awareness?.setLocalStateField('cursor', tick)
    await sleep(500)
  }
  const seconds = (performance.now() - started) / 1000
  return { pages, seconds, sends: sendsByA() - before, bound: pacing.burst + seconds * pacing.sendsPerSecond }
}
