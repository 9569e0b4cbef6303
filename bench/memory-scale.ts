/**
 * Section 5: sidecar A's memory (in a child process, measured after a full collection) idle, with
 * 1,000 WebSocket clients across 100 documents, and after each of three replays of the trace;
 * then the receive path's reassembly and dedup memory filled to their default bounds.
 */
import { randomUUID } from 'node:crypto'
import {
  createDedupWindow,
  createReassembler,
  decodeBody,
  decodeEnvelope,
  encodeBodies,
  encodeEnvelope,
} from '@e2e-col/protocol'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { BenchChild } from './child.ts'
import { PACING_OFF, startBenchStack, untilDoc, untilSaved, type BenchStack } from './stack.ts'
import { collectGarbage, mib } from './stats.ts'
import { ConvergenceError, REPLAY_TRACE, replayOf, type Replay } from './trace-replay.ts'
import { applyPatches, loadTrace } from './traces.ts'

interface Memory {
  readonly rss: number
  readonly heapUsed: number
  readonly external: number
  readonly arrayBuffers: number
}

/** Sidecar A in its own process, so its memory is measured apart from the clients and the toy. */
class Child {
  readonly #child = new BenchChild('sidecar-child.ts', ['--expose-gc'])

  request<T>(message: object, answer: string): Promise<T> {
    return this.#child.request<T>(message, answer)
  }

  /** Memory now; after a full collection unless `gc` is false (a peak under load). */
  measure(gc = true): Promise<Memory> {
    return this.request<Memory>({ type: 'measure', gc }, 'memory')
  }

  stop(): Promise<void> {
    return this.#child.stop()
  }
}

async function openSockets(url: string, docIds: readonly string[], perDoc: number): Promise<WebSocket[]> {
  const sockets: WebSocket[] = []
  for (const docId of docIds) {
    const batch = Array.from({ length: perDoc }, () => new WebSocket(`${url}/v1/docs/${docId}`))
    await Promise.all(
      batch.map(
        (s) =>
          new Promise<void>((resolve, reject) => {
            s.once('open', () => resolve())
            s.once('error', reject)
          }),
      ),
    )
    sockets.push(...batch)
  }
  return sockets
}

async function replayInto(
  stack: BenchStack,
  docId: string,
  replay: Replay,
  halfway?: () => Promise<void>,
): Promise<void> {
  const docA = new Y.Doc()
  const docB = new Y.Doc()
  const a = await stack.connect('a', docId, docA)
  await stack.connect('b', docId, docB)
  const textA = docA.getText('text')
  const textB = docB.getText('text')
  const converged = untilDoc(
    docB,
    () => textB.length === replay.expected.length && textB.toString() === replay.expected,
  )
  let i = 0
  for (const txn of replay.txns) {
    docA.transact(() => applyPatches(textA, txn.patches))
    if (++i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve))
    if (i === replay.txns.length >> 1) await halfway?.()
  }
  await converged
  if (textB.toString() !== replay.expected) throw new ConvergenceError('memory replay did not converge')
  await untilSaved(a.connection)
  await a.connection.close()
}

/** Heap + array-buffer bytes that `build` keeps alive. */
function retained(build: () => unknown): { bytes: number; kept: unknown } {
  // Twice: array buffers of earlier garbage are released by the first collection's finalizers.
  collectGarbage()
  collectGarbage()
  const before = process.memoryUsage()
  const kept = build()
  collectGarbage()
  collectGarbage()
  const after = process.memoryUsage()
  return { bytes: after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers), kept }
}

function reassemblyAtBounds(): { messages: number; dataBytes: number; retainedBytes: number } {
  const maxPartialMessages = 64
  const maxPartialBytes = 64 * 1024 * 1024
  const payload = new Uint8Array(1024 * 1024 - 4096).fill(7)
  const r = retained(() => {
    const reassembler = createReassembler({ maxPartialMessages, maxPartialBytes, ttlMs: 600_000 })
    for (let m = 0; m < maxPartialMessages; m++) {
      const frame = encodeEnvelope({
        kind: 'update',
        flags: 0,
        docId: randomUUID(),
        senderId: randomUUID(),
        messageId: randomUUID().replaceAll('-', ''),
        seq: m,
        payload,
      })
      const bodies = encodeBodies(frame, { maxBodyBytes: 2000 })
      // Every chunk but the last: the message stays partial.
      for (const body of bodies.slice(0, -1)) reassembler.push(decodeEnvelope(decodeBody(body)), 0)
    }
    return reassembler
  })
  const reassembler = r.kept as ReturnType<typeof createReassembler>
  return { messages: reassembler.partialMessages, dataBytes: reassembler.partialBytes, retainedBytes: r.bytes }
}

function dedupAtBounds(): { entries: number; retainedBytes: number } {
  const maxEntries = 100_000
  const r = retained(() => {
    const window = createDedupWindow({ maxEntries, ttlMs: 86_400_000 })
    const doc = randomUUID()
    const sender = randomUUID()
    for (let i = 0; i < maxEntries * 1.5; i++) window.seen(doc, sender, randomUUID().replaceAll('-', ''), i)
    return window
  })
  return { entries: (r.kept as ReturnType<typeof createDedupWindow>).size, retainedBytes: r.bytes }
}

export interface MemoryScaleResult {
  readonly idle: Memory
  readonly clients: {
    readonly sockets: number
    readonly documents: number
    readonly memory: Memory
    readonly rssAboveIdle: number
    readonly heapAboveIdle: number
  }
  readonly replays: {
    readonly keystrokes: number
    readonly during: Memory
    readonly after: Memory[]
    readonly heapGrowth1to3: number
  }
  readonly reassembly: ReturnType<typeof reassemblyAtBounds>
  readonly dedup: ReturnType<typeof dedupAtBounds>
  readonly targets: Record<string, boolean>
}

export async function benchMemoryScale({ quick }: { quick: boolean }): Promise<MemoryScaleResult> {
  const replay = replayOf(loadTrace(REPLAY_TRACE), quick ? 20_000 : undefined)
  const stack = await startBenchStack({ pacing: PACING_OFF, documents: 100, startA: false })
  const child = new Child()
  try {
    const { port } = await child.request<{ port: number }>({ type: 'start', env: stack.env('a') }, 'started')
    const url = `ws://127.0.0.1:${port}`
    stack.setSidecarUrl('a', url)
    await new Promise((resolve) => setTimeout(resolve, 1000)) // startup sync traffic settles
    const idle = await child.measure()
    const sockets = await openSockets(url, stack.docIds, 10)
    const withClients = await child.measure()
    for (const s of sockets) s.close()
    await Promise.all(
      sockets.map(
        (s) => new Promise((resolve) => (s.readyState === WebSocket.CLOSED ? resolve(null) : s.once('close', resolve))),
      ),
    )
    const after: Memory[] = []
    let during: Memory | undefined
    for (let i = 0; i < 3; i++) {
      const halfway = async (): Promise<void> => {
        during ??= await child.measure(false)
      }
      await replayInto(stack, stack.docIds[i] ?? '', replay, halfway)
      after.push(await child.measure())
    }
    const heapGrowth1to3 = (after[2]?.heapUsed ?? 0) - (after[0]?.heapUsed ?? 0)
    const rssAboveIdle = withClients.rss - idle.rss
    // Dedup first: the reassembly's 64 MiB of buffers would still be being released during it.
    const dedup = dedupAtBounds()
    const reassembly = reassemblyAtBounds()
    return {
      idle,
      clients: {
        sockets: sockets.length,
        documents: stack.docIds.length,
        memory: withClients,
        rssAboveIdle,
        heapAboveIdle: withClients.heapUsed - idle.heapUsed,
      },
      replays: { keystrokes: replay.txns.length, during: during ?? idle, after, heapGrowth1to3 },
      reassembly,
      dedup,
      targets: {
        under64MiBFor1000IdleClients: rssAboveIdle < 64 * 2 ** 20,
        // Each replay leaves one more document in the replica; more than 16 MiB between the first
        // and the third would be growth beyond that.
        noGrowthAcrossReplays: heapGrowth1to3 < 16 * 2 ** 20,
      },
    }
  } finally {
    await child.stop()
    await stack.close()
  }
}

function row(label: string, m: Memory | undefined): void {
  if (m !== undefined) console.log(`| ${label} | ${mib(m.rss)} | ${mib(m.heapUsed)} | ${mib(m.external)} |`)
}

export function printMemoryScale(r: MemoryScaleResult): void {
  console.log(`\n## 5. Memory and scale (sidecar A in its own process, after a full collection)\n`)
  console.log('| state | RSS MiB | heap used MiB | external MiB |')
  console.log('|---|---|---|---|')
  row('idle, 100 documents mapped', r.idle)
  row(`${r.clients.sockets} WebSocket clients across ${r.clients.documents} documents`, r.clients.memory)
  row('halfway through replay 1 (no collection first)', r.replays.during)
  r.replays.after.forEach((m, i) =>
    row(`after replay ${i + 1} (${r.replays.keystrokes.toLocaleString('en')} keystrokes, its own document)`, m),
  )
  console.log(
    `\n1,000 clients: RSS +${mib(r.clients.rssAboveIdle)} MiB, heap +${mib(r.clients.heapAboveIdle)} MiB above idle; heap growth replay 1 → 3: ${mib(r.replays.heapGrowth1to3)} MiB`,
  )
  console.log(
    `reassembly at its bounds: ${r.reassembly.messages} partial messages, ${mib(r.reassembly.dataBytes)} MiB of chunk data, ${mib(r.reassembly.retainedBytes)} MiB retained`,
  )
  console.log(
    `dedup at its bound: ${r.dedup.entries.toLocaleString('en')} keys, ${mib(r.dedup.retainedBytes)} MiB retained (${(r.dedup.retainedBytes / r.dedup.entries).toFixed(0)} B per key)`,
  )
  console.log('targets:', r.targets)
}
