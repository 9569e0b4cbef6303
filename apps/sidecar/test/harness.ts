/**
 * Integration harness: a toy daemon with accounts A and B in one group, sidecars started
 * in-process on port 0, and raw `ws` clients that collect decoded envelopes. Every resource is
 * closed at the end of the test that opened it.
 */
import {
  clientIdFor,
  decodeDeliveryNote,
  decodeEnvelope,
  encodeEnvelope,
  type Envelope,
  type Kind,
} from '@e2e-col/protocol'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { loadConfig, startSidecar, type RunningSidecar, type SidecarDeps } from '../src/index.ts'

export const A = '+33600000001'
export const B = '+33600000002'

export interface Pair {
  toy: ToySignal
  docId: string
  groupId: string
  a: RunningSidecar
  b: RunningSidecar
  envFor(account: string, extra?: Record<string, string>): Record<string, string>
}

export async function startToy(): Promise<ToySignal> {
  const toy = await createToySignal({
    accounts: [A, B],
    groups: [{ name: 'doc', members: [A, B] }],
    faults: true,
    keepAliveMs: 1000,
  })
  onTestFinished(() => toy.close())
  return toy
}

/** A fresh replica data folder, removed after the test. */
export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-replica-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export function baseEnv(
  toy: ToySignal,
  account: string | undefined,
  docId: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SIGNAL_CLI_URL: toy.url,
    ...(account === undefined ? {} : { SIGNAL_CLI_ACCOUNT: account }),
    E2E_COL_DOCUMENTS: `${docId}=${toy.groups[0]?.id ?? ''}`,
    E2E_COL_SIGNAL_BODY_MAX_BYTES: '600',
    E2E_COL_LISTEN: '127.0.0.1:0',
    E2E_COL_SENDS_PER_SECOND: '1000',
    E2E_COL_SEND_BURST: '1000',
    E2E_COL_RETRY_BASE_MS: '10',
    E2E_COL_RETRY_MAX_MS: '40',
    E2E_COL_RECONNECT_BASE_MS: '20',
    E2E_COL_RECONNECT_MAX_MS: '80',
    E2E_COL_RPC_TIMEOUT_MS: '5000',
    E2E_COL_SHUTDOWN_FLUSH_MS: '500',
    E2E_COL_LOG_LEVEL: 'silent',
    E2E_COL_DATA_DIR: tempDataDir(),
    // The carry tests count sends; the replica tests turn the start-up catch-up back on, and the
    // attachment and compression tests the capability announcements (contract §4.10).
    E2E_COL_SYNC_ON_START: '0',
    E2E_COL_CAPABILITIES: 'none',
    ...extra,
  }
}

export async function sidecar(env: Record<string, string>, deps: SidecarDeps = {}): Promise<RunningSidecar> {
  const s = await startSidecar(loadConfig(env), deps)
  onTestFinished(() => s.close())
  return s
}

export async function startPair(extra: { a?: Record<string, string>; b?: Record<string, string> } = {}): Promise<Pair> {
  const toy = await startToy()
  const docId = randomUUID()
  const envFor = (account: string, more: Record<string, string> = {}) => baseEnv(toy, account, docId, more)
  const [a, b] = await Promise.all([sidecar(envFor(A, extra.a)), sidecar(envFor(B, extra.b))])
  return { toy, docId, groupId: toy.groups[0]?.id ?? '', a, b, envFor }
}

/** A valid Yjs update of about `bytes` bytes (the replica refuses update payloads that are not). */
export function yjsUpdate(bytes: number): Uint8Array {
  const doc = new Y.Doc()
  doc.getText('t').insert(
    0,
    randomBytes(Math.ceil(bytes / 2))
      .toString('hex')
      .slice(0, Math.max(1, bytes - 24)),
  )
  return Y.encodeStateAsUpdate(doc)
}

let seq = 0
export function envelope(
  docId: string,
  senderId: string,
  payload: Uint8Array | number = 8,
  kind: Kind = 'update',
): Envelope {
  const bytes =
    typeof payload !== 'number'
      ? payload
      : kind === 'update'
        ? yjsUpdate(payload)
        : new Uint8Array(randomBytes(payload))
  return { kind, flags: 0, docId, senderId, messageId: randomBytes(16).toString('hex'), seq: seq++, payload: bytes }
}

/** A raw WebSocket client that records every binary frame as a decoded envelope. */
/** Default deadline of the harness's waits: generous on a busy machine, inside the 30 s test bound. */
export const WAIT_MS = 20_000

export interface Client {
  ws: WebSocket
  senderId: string
  received: Envelope[]
  send(env: Envelope): void
  /** Resolves with the first received envelope (past or future) matching `match`. */
  waitFor(match: (e: Envelope) => boolean, timeoutMs?: number): Promise<Envelope>
  closed: Promise<{ code: number; reason: string }>
}

export async function connect(
  s: Pick<RunningSidecar, 'url'>,
  docId: string,
  options: { origin?: string; path?: string } = {},
): Promise<Client> {
  const ws = new WebSocket(
    `${s.url.replace('http', 'ws')}${options.path ?? `/v1/docs/${docId}`}`,
    options.origin === undefined ? {} : { origin: options.origin },
  )
  const received: Envelope[] = []
  const waiters: { match: (e: Envelope) => boolean; resolve: (e: Envelope) => void }[] = []
  ws.on('message', (data: Buffer) => {
    const env = decodeEnvelope(new Uint8Array(data))
    received.push(env)
    const hits = waiters.filter((w) => w.match(env))
    for (const w of hits) {
      waiters.splice(waiters.indexOf(w), 1)
      w.resolve(env)
    }
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  onTestFinished(() => ws.terminate())
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  const client: Client = {
    ws,
    senderId: randomUUID(),
    received,
    send: (env) => ws.send(encodeEnvelope(env)),
    waitFor(match, timeoutMs = WAIT_MS) {
      const hit = received.find(match)
      if (hit !== undefined) return Promise.resolve(hit)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const kinds = received
            .slice(-5)
            .map((e) => `${e.kind} ${e.messageId.slice(0, 8)}`)
            .join(', ')
          reject(
            new Error(
              `waited ${timeoutMs} ms for a matching envelope (${match.toString().slice(0, 120)}); received ${received.length}, last: ${kinds || 'none'}`,
            ),
          )
        }, timeoutMs)
        waiters.push({
          match,
          resolve: (e) => {
            clearTimeout(timer)
            resolve(e)
          },
        })
      })
    },
    closed,
  }
  return client
}

/**
 * A Y.Doc writing as a page of today writes: under a client id made from the author tag its
 * sidecar's first delivery note names (docs/decisions/0023), `n` its random low bits.
 */
export async function pageDoc(c: Client, n = Math.floor(Math.random() * 2 ** 22)): Promise<Y.Doc> {
  const note = await c.waitFor((e) => e.kind === 'delivery' && decodeDeliveryNote(e.payload)?.author !== undefined)
  const doc = new Y.Doc()
  doc.clientID = clientIdFor(decodeDeliveryNote(note.payload)?.author as number, n)
  return doc
}

/** The sidecar has the envelope durably ("saved by your sidecar"); Signal may not have it yet. */
export const isAck = (messageId: string) => (e: Envelope) => e.kind === 'ack' && e.messageId === messageId
/** A delivery note saying Signal accepted the envelope. */
export const isSent = (messageId: string) => (e: Envelope) =>
  e.kind === 'delivery' && (decodeDeliveryNote(e.payload)?.sent ?? []).includes(messageId)
export const isMessage = (messageId: string) => (e: Envelope) =>
  e.kind !== 'ack' && e.kind !== 'error' && e.kind !== 'delivery' && e.messageId === messageId
export const count = (c: Client, messageId: string) => c.received.filter(isMessage(messageId)).length

/**
 * Re-checks `predicate` every 20 ms until it holds: only for state with no event to await
 * (another process's store, a metric).
 */
export async function poll(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** One sample of a sidecar's Prometheus metrics (0 when absent). */
export async function metricValue(url: string, sample: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `))
  return line === undefined ? 0 : Number(line.slice(sample.length + 1))
}

/** What a sidecar reads and announces by default (the harness turns it off: see baseEnv). */
export const CAPABLE = { E2E_COL_CAPABILITIES: 'deflate,attachments' } as const

/**
 * Waits until each sidecar has heard another member's capability announcement (contract §4.10),
 * so the forms that need it (deflated payloads, attachments) are in use from the next send on.
 */
export async function capabilitiesExchanged(...sidecars: Pick<RunningSidecar, 'url'>[]): Promise<void> {
  for (const s of sidecars) {
    await poll(
      async () => (await metricValue(s.url, 'e2e_col_capability_announcements_total{direction="received"}')) >= 1,
      'a capability announcement from the other member',
      15_000,
    )
  }
}
