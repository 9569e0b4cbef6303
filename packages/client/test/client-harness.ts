import 'fake-indexeddb/auto'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import {
  connectDoc,
  createIndexedDbStorage,
  type ClientStatus,
  type ConnectDocOptions,
  type DocConnection,
} from '../src/index.ts'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { afterEach } from 'vitest'
import { startRelay, type Relay } from './sim-relay.ts'

let counter = 0
/** A storage namespace no other test uses (fake-indexeddb is shared by the whole worker). */
export function freshPrefix(): string {
  counter += 1
  return `client-test-${process.pid}-${counter}`
}

export const DOC_ID = '11111111-1111-4111-8111-111111111111'

/** Connects a client with Node-friendly defaults: ws, IndexedDB via fake-indexeddb, fast timers. */
export function client(
  url: string,
  prefix: string,
  extra: Partial<ConnectDocOptions> = {},
): { doc: Y.Doc; conn: DocConnection; text: Y.Text } {
  const doc = extra.doc ?? new Y.Doc()
  const conn = connectDoc({
    doc,
    sidecarUrl: url,
    docId: DOC_ID,
    storage: createIndexedDbStorage(DOC_ID, { prefix }),
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    flushWindowMs: 10,
    checkpointDelayMs: 20,
    syncResponseDelayMs: { min: 2, max: 20 },
    lifecycle: null,
    transport: { backoff: { baseMs: 10, maxMs: 80, factor: 2 }, network: null, stableAfterMs: 50 },
    ...extra,
  })
  return { doc, conn, text: doc.getText('t') }
}

/** How long a harness wait gives the awaited state before it fails saying what it waited for (inside the 30 s test bound). */
export const WAIT_MS = 20_000

/**
 * Resolves with the first status that satisfies `predicate` (the current one included); rejects
 * after `timeoutMs` naming `what` and the last status.
 */
export function statusWhere(
  conn: DocConnection,
  predicate: (s: ClientStatus) => boolean,
  { what = 'a status matching the predicate', timeoutMs = WAIT_MS }: { what?: string; timeoutMs?: number } = {},
): Promise<ClientStatus> {
  const now = conn.status()
  if (predicate(now)) return Promise.resolve(now)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off()
      reject(new Error(`waited ${timeoutMs} ms for ${what}; last status ${JSON.stringify(conn.status())}`))
    }, timeoutMs)
    const off = conn.on('status', (s) => {
      if (predicate(s)) {
        off()
        clearTimeout(timer)
        resolve(s)
      }
    })
  })
}

/**
 * Resolves when every doc's text equals `expected` (checked on each update); rejects after
 * `timeoutMs` with each doc's length against the expected one.
 */
export function textsBecome(
  docs: readonly Y.Doc[],
  expected: () => string | undefined,
  { timeoutMs = WAIT_MS } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer)
      for (const d of docs) d.off('update', check)
    }
    const check = (): void => {
      const target = expected()
      if (target !== undefined && docs.every((d) => d.getText('t').toString() === target)) {
        stop()
        resolve()
      }
    }
    const timer = setTimeout(() => {
      stop()
      const lengths = docs.map((d) => d.getText('t').length).join(', ')
      reject(
        new Error(
          `waited ${timeoutMs} ms for ${docs.length} documents to hold the same text (${expected()?.length ?? 'no'} chars); they hold ${lengths} chars`,
        ),
      )
    }, timeoutMs)
    for (const d of docs) d.on('update', check)
    check()
  })
}

/**
 * What a test opens, closed after it: call once at the top of a test file; `relay()` starts a
 * simulated sidecar and `track()` a connection, both closed (last first) after each test.
 */
export function closingAfterEach(): { relay(): Promise<Relay>; track<T extends { conn: DocConnection }>(c: T): T } {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (let c = cleanups.pop(); c !== undefined; c = cleanups.pop()) await c()
  })
  return {
    async relay() {
      const r = await startRelay()
      cleanups.push(() => r.close())
      return r
    },
    track(c) {
      cleanups.push(() => c.conn.close())
      return c
    },
  }
}
