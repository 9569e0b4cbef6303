/**
 * A page that sends faster than its sidecar's per-connection frame limit loses nothing: the real
 * sidecar refuses the excess (`SIDECAR_RATE_LIMITED`), the client holds and sends the refused
 * changes again, and every edit reaches the other member. The limit is set low (20 frames/s, burst
 * 10) and the strike limit high, so the hold, not a reconnect, is what recovers.
 */
import { connectDoc, createMemoryStorage, type DocConnection } from '@e2e-col/client'
import type { WebSocketConstructor } from '@e2e-col/transport'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import type { DemoStack, Who } from '../src/index.ts'
import { useDemoStack } from './pages.ts'

const until = async (what: string, predicate: () => boolean, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs / 1000} s for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The sidecar's count of frames it refused as over the connection's rate (its /metrics). */
async function rateRefusals(stack: DemoStack, who: Who): Promise<number> {
  const text = await (await fetch(`${stack.sidecarUrl(who).replace(/^ws/, 'http')}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith('e2e_col_frames_refused_total{code="SIDECAR_RATE_LIMITED"}'))
  return line === undefined ? 0 : Number(line.split(' ').at(-1))
}

describe('a client over its sidecar’s frame limit', () => {
  const conns: DocConnection[] = []
  const run = useDemoStack(
    {
      page: false,
      sidecarPorts: [0, 0],
      sidecarEnv: {
        E2E_COL_LOG_LEVEL: 'silent',
        E2E_COL_FRAMES_PER_SECOND: '20',
        E2E_COL_FRAME_BURST: '10',
        E2E_COL_ABUSE_LIMIT: '1000',
      },
    },
    {
      closeFirst: async () => {
        for (const c of conns) await c.close()
      },
    },
  )

  test('has its refused changes held and sent again: all saved, all at the peer, one connection', async () => {
    const open = (doc: Y.Doc, who: Who): DocConnection => {
      const c = connectDoc({
        doc,
        sidecarUrl: run.stack.sidecarUrl(who),
        docId: run.stack.docId,
        storage: createMemoryStorage(),
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        lifecycle: null,
        flushWindowMs: 1,
        rateLimitHoldMs: { min: 200, max: 2000 },
      })
      conns.push(c)
      return c
    }
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const alice = open(docA, 'alice')
    open(docB, 'bob')
    await until('alice connected', () => alice.status().connection === 'connected')
    let connects = 0
    alice.on('status', (s) => {
      if (s.connection === 'connecting') connects += 1
    })
    const before = await rateRefusals(run.stack, 'alice')

    const text = docA.getText('text')
    for (let i = 0; i < 60; i++) {
      text.insert(text.length, `${i} `)
      await alice.flush() // one frame per edit, unpaced
    }
    await until('every change saved by the sidecar', () => alice.status().pending === 0)
    expect(await rateRefusals(run.stack, 'alice')).toBeGreaterThan(before)
    await until('every change at Bob', () => docB.getText('text').toString() === text.toString())
    expect(connects).toBe(0)
  })
})
