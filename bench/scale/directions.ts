/**
 * Scale, typing latency in both directions: Alice → Bob and Bob → Alice on the same stack (the
 * toy in this process, each sidecar in its own process, Alice's started first as `npm start` does),
 * as single keystrokes on an idle document and as the typing replay of section 2, and, when given,
 * one person's typing across the session (typing-speed.ts `personSchedule`). Sends are the author's
 * Signal sends during the replay.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Y from 'yjs'
import { ACCOUNTS, connectBenchClient, untilDoc, untilSaved, type BenchClient, type Pacing } from '../stack.ts'
import { percentiles, type Percentiles } from '../stats.ts'
import type { SequentialTrace } from '../traces.ts'
import { typeOnSchedule } from '../typing-speed.ts'
import { VisibilityTracker } from '../visibility.ts'
import { baselineProvider } from './large-doc.ts'
import { Proc, scaleGroups, startSidecarProc, startToy, type Runtime } from './procs.ts'

export type Direction = 'Alice → Bob' | 'Bob → Alice'

export interface TypingFigures {
  readonly keystrokes: number
  readonly latencyMs: Percentiles
  readonly sends: number
  readonly sendsPerMinute: number
}

export interface DirectionRun {
  readonly direction: Direction
  readonly singleEditMs: Percentiles
  /** The two-author window of section 2: both people's keystrokes through one sidecar. */
  readonly typing: TypingFigures
  /** One person's typing across the session, when `personOffsets` was given. */
  readonly personTyping?: TypingFigures
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

interface Pair {
  readonly alice: { client: BenchClient; doc: Y.Doc }
  readonly bob: { client: BenchClient; doc: Y.Doc }
}

async function singleEdits(from: Y.Doc, to: Y.Doc, samples: number, quietMs: number): Promise<number[]> {
  const latencies: number[] = []
  // A text of its own: the typing replay that follows starts from an empty 'text'.
  const text = from.getText('single')
  const seen = to.getText('single')
  for (let i = 0; i < samples; i++) {
    await sleep(quietMs)
    const started = performance.now()
    text.insert(text.length, 'x')
    const want = text.toString()
    await untilDoc(to, () => seen.toString() === want, 'a single keystroke at the peer')
    latencies.push(performance.now() - started)
  }
  return latencies
}

async function typingRun(
  from: { client: BenchClient; doc: Y.Doc },
  to: Y.Doc,
  trace: SequentialTrace,
  offsets: readonly number[],
  sendsOf: () => number,
): Promise<TypingFigures> {
  // The replay types into a text of its own, so both directions start from an empty text.
  const before = sendsOf()
  const tracker = new VisibilityTracker(to, from.doc.clientID)
  await typeOnSchedule(from.doc, tracker, trace, offsets)
  const want = from.doc.getText('text').toString()
  await untilDoc(to, () => to.getText('text').toString() === want, 'the typing replay at the peer')
  await untilSaved(from.client.connection)
  tracker.dispose()
  if (tracker.outstanding !== 0) throw new Error(`${tracker.outstanding} keystrokes never became visible`)
  const sends = sendsOf() - before
  const seconds = (offsets.at(-1) ?? 0) / 1000 + 1
  return {
    keystrokes: offsets.length,
    latencyMs: percentiles(tracker.latencies),
    sends,
    sendsPerMinute: sends / (seconds / 60),
  }
}

export interface DirectionOptions {
  readonly runtime: Runtime
  readonly pacing: Pacing
  readonly samples: number
  readonly trace: SequentialTrace
  readonly offsets: readonly number[]
  readonly personOffsets?: readonly number[]
}

/**
 * Both directions on one stack, each replay on a document of its own (so none types over another's
 * text): the first two documents for the two-author window, the next two for one person's typing.
 */
export async function bothDirections(o: DirectionOptions): Promise<DirectionRun[]> {
  const { docIds, groups } = scaleGroups(4, [ACCOUNTS.a, ACCOUNTS.b])
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-col-scale-'))
  const toy = await startToy([ACCOUNTS.a, ACCOUNTS.b], groups, true)
  const procs: Proc[] = []
  const clients: BenchClient[] = []
  try {
    const layout = { toyUrl: toy.url, docIds, groups, dataDir }
    const a = await startSidecarProc(o.runtime, 'a', layout, o.pacing)
    procs.push(a.proc)
    const b = await startSidecarProc(o.runtime, 'b', layout, o.pacing)
    procs.push(b.proc)
    const sendsBy = (account: string) => () => toy.sends().filter((s) => s.account === account).length
    const runs: DirectionRun[] = []
    const quietMs = 1000 / o.pacing.sendsPerSecond + 300
    for (const [i, direction] of (['Alice → Bob', 'Bob → Alice'] as const).entries()) {
      // Alice's page on her sidecar and Bob's on his, both saved, on `docId`; the author's first.
      const pages = async (docId: string): Promise<[Pair['alice'], Pair['bob']]> => {
        const pair: Pair = {
          alice: await connectSide(a.url, docId, clients),
          bob: await connectSide(b.url, docId, clients),
        }
        await untilSaved(pair.alice.client.connection)
        await untilSaved(pair.bob.client.connection)
        return fromTo(direction, pair)
      }
      const [from, to] = await pages(docIds[i] ?? '')
      const refill = (): Promise<void> => sleep((o.pacing.burst * 1000) / o.pacing.sendsPerSecond)
      // Let start-up traffic end and the bucket refill.
      await refill()
      const singleEditMs = percentiles(await singleEdits(from.doc, to.doc, o.samples, quietMs))
      await refill()
      const author = direction === 'Alice → Bob' ? ACCOUNTS.a : ACCOUNTS.b
      const typing = await typingRun(from, to.doc, o.trace, o.offsets, sendsBy(author))
      if (o.personOffsets === undefined) {
        runs.push({ direction, singleEditMs, typing })
        continue
      }
      const [pFrom, pTo] = await pages(docIds[2 + i] ?? '')
      await refill()
      const personTyping = await typingRun(pFrom, pTo.doc, o.trace, o.personOffsets, sendsBy(author))
      runs.push({ direction, singleEditMs, typing, personTyping })
    }
    return runs
  } finally {
    for (const c of clients.splice(0)) await c.connection.close()
    for (let p = procs.pop(); p !== undefined; p = procs.pop()) await p.stop()
    await toy.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export interface BaselineTyping {
  readonly system: 'y-websocket' | 'Hocuspocus'
  /** The two-author window, and one person's typing when given: latency only (no Signal sends). */
  readonly typing: Pick<TypingFigures, 'keystrokes' | 'latencyMs'>
  readonly personTyping?: Pick<TypingFigures, 'keystrokes' | 'latencyMs'>
}

/** The same replays through a y-websocket or Hocuspocus server in its own `node` process (A → B). */
export async function baselineTyping(
  system: BaselineTyping['system'],
  o: Pick<DirectionOptions, 'trace' | 'offsets' | 'personOffsets'>,
): Promise<BaselineTyping> {
  const proc = Proc.baseline()
  try {
    const { url } = await proc.start<{ url: string }>({
      type: 'start',
      kind: system === 'Hocuspocus' ? 'hocuspocus' : 'yws',
    })
    const replay = async (room: string, offsets: readonly number[]): Promise<BaselineTyping['typing']> => {
      const a = new Y.Doc()
      const b = new Y.Doc()
      const providers = [await baselineProvider(system, url, room, a), await baselineProvider(system, url, room, b)]
      try {
        const tracker = new VisibilityTracker(b, a.clientID)
        await typeOnSchedule(a, tracker, o.trace, offsets)
        const want = a.getText('text').toString()
        await untilDoc(b, () => b.getText('text').toString() === want, `the typing replay through ${system}`)
        tracker.dispose()
        if (tracker.outstanding !== 0)
          throw new Error(`${system}: ${tracker.outstanding} keystrokes never became visible`)
        return { keystrokes: offsets.length, latencyMs: percentiles(tracker.latencies) }
      } finally {
        for (const p of providers) p.destroy()
      }
    }
    const typing = await replay('typing', o.offsets)
    if (o.personOffsets === undefined) return { system, typing }
    return { system, typing, personTyping: await replay('person', o.personOffsets) }
  } finally {
    await proc.stop()
  }
}

function fromTo(direction: Direction, pair: Pair): [Pair['alice'], Pair['bob']] {
  return direction === 'Alice → Bob' ? [pair.alice, pair.bob] : [pair.bob, pair.alice]
}

async function connectSide(
  url: string,
  docId: string,
  clients: BenchClient[],
): Promise<{ client: BenchClient; doc: Y.Doc }> {
  const doc = new Y.Doc()
  const client = await connectBenchClient(url, docId, doc)
  clients.push(client)
  return { client, doc }
}
