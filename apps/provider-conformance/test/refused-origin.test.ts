/**
 * A page whose origin the sidecar does not allow is told so: the provider's `closed` event and
 * its error name the origin and the setting, and it does not retry (a refused upgrade would have
 * been a bare connection failure, retried forever).
 */
import { createMemoryStorage, E2eColProvider, type WebSocketPolyfill } from '@e2e-col/client'
import { startDemoStack } from '@e2e-col/demo'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import * as Y from 'yjs'

const ELSEWHERE = 'https://pages.example.net'

/** A WebSocket that says it comes from a page of {@link ELSEWHERE}, as a browser there would. */
class FromElsewhere extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols, { origin: ELSEWHERE })
  }
}

describe('a page of an origin the sidecar does not allow', () => {
  let stack: Awaited<ReturnType<typeof startDemoStack>>
  beforeAll(async () => {
    stack = await startDemoStack({ page: false, sidecarPorts: [0, 0], sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' } })
  }, 60_000)
  afterAll(() => stack.close())

  it('is told which origin was refused and what to set, and is not retried', async () => {
    const provider = new E2eColProvider(stack.sidecarUrl('alice'), stack.docId, new Y.Doc(), {
      WebSocketPolyfill: FromElsewhere as unknown as WebSocketPolyfill,
      storage: createMemoryStorage(),
      lifecycle: null,
      maxBackoffTime: 200,
      transport: { network: null },
    })
    const errors: { code?: string; message?: string }[] = []
    provider.on('error', (error: { code?: string; message?: string }) => void errors.push(error))
    let attempts = 0
    provider.on('status', ({ status }: { status: string }) => void (status === 'connecting' && attempts++))
    const closed = await new Promise((resolve) => provider.on('closed', (event: unknown) => resolve(event)))
    const reason = `${ELSEWHERE} is not allowed: add it to E2E_COL_ALLOWED_ORIGINS`
    expect(closed).toEqual({ code: 4403, reason })
    // Well past the backoff a retry would wait.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(attempts).toBe(1)
    expect(errors.map((e) => e.code)).toEqual(['CLIENT_ORIGIN_NOT_ALLOWED'])
    expect(errors[0]?.message).toContain(reason)
    expect(provider.synced).toBe(false)
    provider.destroy()
  }, 30_000)
})
