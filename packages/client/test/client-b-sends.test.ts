/**
 * What a binding puts on the wire and when: nothing is sent (nor a sequence number spent) while
 * disconnected or once closing, and the missing-WebSocket error says what to pass.
 */
import * as Y from 'yjs'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { connectDoc, createMemoryStorage } from '../src/index.ts'
import { DOC_ID } from './client-harness.ts'
import { connected, scriptedBindings, settle } from './scripted-sidecar.ts'

const { open } = scriptedBindings()

afterEach(() => {
  vi.unstubAllGlobals()
})

function connectWithoutWebSocket(): unknown {
  return connectDoc({ doc: new Y.Doc(), sidecarUrl: 'ws://127.0.0.1:9', docId: DOC_ID, storage: createMemoryStorage() })
}

describe('sends', () => {
  test('an answer due while disconnected is not sent and spends no sequence number', async () => {
    const b = await connected(open)
    const first = b.socket()
    const [request] = first.sent.filter((e) => e.kind === 'sync-request')
    first.deliver({ kind: 'sync-request', payload: Y.encodeStateVector(new Y.Doc()) })
    first.serverClose(1011, 'gone')
    b.timers.advance(10) // the answer's delay ends while the binding is offline
    b.conn.reconnectNow()
    b.socket().open()
    const sent = b.socket().sent
    expect(sent.map((e) => e.kind)).toEqual(['sync-request'])
    expect(sent[0]?.seq).toBe((request?.seq ?? Number.NaN) + 1)
  })

  test('a connection that opens while the binding closes sends nothing from the outbox', async () => {
    const b = open()
    await b.conn.ready
    b.text.insert(0, 'waiting in the outbox')
    await b.conn.flush()
    expect(b.conn.status().pending).toBe(1)
    const closing = b.conn.close()
    b.socket().open()
    await closing
    await settle()
    expect(b.socket().sent).toEqual([])
  })

  test('without a WebSocket constructor anywhere, connectDoc says to pass options.WebSocket', () => {
    vi.stubGlobal('WebSocket', undefined)
    expect(connectWithoutWebSocket).toThrow(
      expect.objectContaining({ code: 'CLIENT_NO_WEBSOCKET', message: expect.stringContaining('options.WebSocket') }),
    )
  })
})
