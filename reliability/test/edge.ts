/**
 * Test fixtures for the abuse tests: a toy daemon with accounts A, B, C in one group, in-process
 * sidecars for A and B, and a well-behaved probe client whose ack latency is measured.
 */
import { authorTagFromHash, clientIdFor, decodeEnvelope, encodeEnvelope, type Envelope } from '@e2e-col/protocol'
import { loadConfig, startSidecar, type RunningSidecar } from '@e2e-col/sidecar'
import { createToySignal, type ToySignal, type ToySignalOptions } from '@e2e-col/toy-signal'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { WebSocket } from 'ws'
import * as Y from 'yjs'

export const A = '+15550100001'
export const B = '+15550100002'
export const C = '+15550100003'

/** An account of the toy that is not in the group at first. */
export const D = '+15550100004'

export async function toyWithThree(options: Partial<ToySignalOptions> = {}): Promise<ToySignal> {
  const toy = await createToySignal({
    accounts: [A, B, C, D],
    groups: [{ name: 'doc', members: [A, B, C] }],
    faults: true,
    keepAliveMs: 1000,
    ...options,
  })
  onTestFinished(() => toy.close())
  return toy
}

export function sidecarEnv(
  toy: ToySignal,
  account: string,
  docId: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-abuse-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return {
    SIGNAL_CLI_URL: toy.url,
    SIGNAL_CLI_ACCOUNT: account,
    E2E_COL_DOCUMENTS: `${docId}=${toy.groups[0]?.id ?? ''}`,
    E2E_COL_SIGNAL_BODY_MAX_BYTES: '2000',
    E2E_COL_LISTEN: '127.0.0.1:0',
    E2E_COL_SENDS_PER_SECOND: '200',
    E2E_COL_SEND_BURST: '50',
    E2E_COL_RETRY_BASE_MS: '10',
    E2E_COL_RETRY_MAX_MS: '40',
    E2E_COL_RECONNECT_BASE_MS: '20',
    E2E_COL_RECONNECT_MAX_MS: '80',
    E2E_COL_SHUTDOWN_FLUSH_MS: '200',
    E2E_COL_LOG_LEVEL: 'silent',
    E2E_COL_SYNC_ON_START: '0',
    E2E_COL_DATA_DIR: dir,
    ...extra,
  }
}

export async function sidecar(env: Record<string, string>): Promise<RunningSidecar> {
  const s = await startSidecar(loadConfig(env))
  onTestFinished(() => s.close())
  return s
}

export const wsUrl = (s: { url: string }, docId: string) => `${s.url.replace('http', 'ws')}/v1/docs/${docId}`

export function update(text: string): Uint8Array {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}

export function envelopeOf(
  docId: string,
  senderId: string,
  payload: Uint8Array,
  kind: Envelope['kind'] = 'update',
): Envelope {
  return { kind, flags: 0, docId, senderId, messageId: randomBytes(16).toString('hex'), seq: 0, payload }
}

/** The toy with A, B, C in one group and in-process sidecars for A and B on one document. */
export async function twoSidecars(extra: Record<string, string> = {}) {
  const toy = await toyWithThree()
  const docId = randomUUID()
  const sa = await sidecar(sidecarEnv(toy, A, docId, extra))
  const sb = await sidecar(sidecarEnv(toy, B, docId, extra))
  return { toy, docId, sa, sb }
}

/** Opens a socket; resolves once open, or with the HTTP status that refused the upgrade. */
export function open(url: string, options: { origin?: string } = {}): Promise<{ ws: WebSocket; refused?: number }> {
  const ws = new WebSocket(url, options.origin === undefined ? {} : { origin: options.origin })
  onTestFinished(() => ws.terminate())
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ ws }))
    ws.once('unexpected-response', (_req, res) => {
      resolve({ ws, refused: res.statusCode ?? 0 })
      ws.terminate()
    })
    ws.once('error', () => resolve({ ws, refused: -1 }))
  })
}

export const closed = (ws: WebSocket) =>
  new Promise<number>((resolve) =>
    ws.readyState === ws.CLOSED ? resolve(-1) : ws.once('close', (code) => resolve(code)),
  )

/** A well-behaved client: sends one small update at a time and times its ack. */
export class Probe {
  readonly senderId = randomUUID()
  readonly #ws: WebSocket
  readonly #docId: string
  readonly #waiting = new Map<string, () => void>()

  private constructor(ws: WebSocket, docId: string) {
    this.#ws = ws
    this.#docId = docId
    ws.on('message', (data: Buffer) => {
      const env = decodeEnvelope(new Uint8Array(data))
      if (env.kind === 'ack') this.#waiting.get(env.messageId)?.()
    })
  }

  static async connect(url: string, docId: string): Promise<Probe> {
    const { ws, refused } = await open(url)
    if (refused !== undefined) throw new Error(`probe refused: ${refused}`)
    return new Probe(ws, docId)
  }

  /** Milliseconds from sending an update to its ack. */
  async roundTrip(timeoutMs = 15_000): Promise<number> {
    const env = envelopeOf(this.#docId, this.senderId, update(`probe ${Date.now()}`))
    const started = performance.now()
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('probe not acknowledged in time')), timeoutMs)
      this.#waiting.set(env.messageId, () => {
        clearTimeout(t)
        resolve()
      })
      this.#ws.send(encodeEnvelope(env))
    })
    this.#waiting.delete(env.messageId)
    return performance.now() - started
  }

  /** Median of `n` round trips. */
  async median(n: number): Promise<number> {
    const times: number[] = []
    for (let i = 0; i < n; i++) times.push(await this.roundTrip())
    times.sort((a, b) => a - b)
    return times[Math.floor(n / 2)] ?? 0
  }
}

/** Posts `message` to `groupId` (the toy's first group by default) as `account`, through the daemon's own `send`. */
export async function postAs(
  toy: ToySignal,
  account: string,
  message: string,
  groupId = toy.groups[0]?.id ?? '',
): Promise<void> {
  const res = await fetch(`${toy.url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: randomUUID(),
      method: 'send',
      params: { account, groupId, message },
    }),
  })
  const text = await res.text()
  if (res.status !== 200 || text.includes('"error"'))
    throw new Error(`send as ${account} failed: ${res.status} ${text.slice(0, 200)}`)
}

/** Calls a daemon method as `account` and returns its result. */
export async function rpcAs(
  toy: ToySignal,
  account: string,
  method: string,
  params: Record<string, unknown>,
): Promise<unknown> {
  const res = await fetch(`${toy.url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params: { account, ...params } }),
  })
  const answer = (await res.json()) as { result?: unknown; error?: { message: string } }
  if (answer.error !== undefined) throw new Error(`${method} as ${account} failed: ${answer.error.message}`)
  return answer.result
}

/** The sum of a sidecar's metric lines starting with `prefix`. */
export async function metric(s: { url: string }, prefix: string): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text()
  return text
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)
}

/** Polls `done` every 20 ms until it holds or `ms` pass; fails naming what it waited for. */
export async function waitFor(what: string, done: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** A socket on a document that records every envelope its sidecar sends it. */
export async function reader(url: string): Promise<{ ws: WebSocket; received: Envelope[] }> {
  const { ws, refused } = await open(url)
  if (refused !== undefined) throw new Error(`reader refused: ${refused}`)
  const received: Envelope[] = []
  ws.on('message', (data: Buffer) => received.push(decodeEnvelope(new Uint8Array(data))))
  return { ws, received }
}

/** An account's author tag, as decision 0023 defines it (the sidecars tell their pages the same). */
export function authorTagOf(number: string): number {
  return authorTagFromHash(createHash('sha256').update(`e2e-col author tag v1\n${number}`).digest())
}

const varUint = (n: number): number[] => {
  const out: number[] = []
  for (; n > 0x7f; n = Math.floor(n / 128)) out.push(0x80 | (n % 128))
  return [...out, n]
}

/**
 * An awareness payload in y-protocols' form holding one state (about `bytes` long) at `clock`,
 * under client id `clientId` (a page's presence: a member's sidecar passes on only its own ids').
 */
export function presenceUnder(clientId: number, clock: number, bytes = 150): Uint8Array {
  return stateUnder(clientId, clock, { user: { name: 'x'.repeat(Math.max(0, bytes - 20)) } })
}

/** An awareness payload holding `state` (null: the removal of that presence) under `clientId` at `clock`. */
export function stateUnder(clientId: number, clock: number, state: unknown): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(state))
  return Uint8Array.from([1, ...varUint(clientId), ...varUint(clock), ...varUint(json.length), ...json])
}

/** A page id under `tag` (its low bits `n`). */
export const pageIdOf = (tag: number, n: number) => clientIdFor(tag, n)

/** The client id and clock of the first state in an awareness payload (undefined for none). */
export function firstPresence(payload: Uint8Array): { clientId: number; clock: number } | undefined {
  let at = 0
  const read = (): number => {
    let n = 0
    for (let mult = 1; at < payload.length; mult *= 128) {
      const b = payload[at++] as number
      n += (b & 0x7f) * mult
      if (b < 0x80) return n
    }
    return Number.NaN
  }
  if (read() < 1) return undefined
  const clientId = read()
  const clock = read()
  return Number.isNaN(clock) ? undefined : { clientId, clock }
}
