import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { BroadcastRecoveryRequiredError, createHttpSignalBackend, type SignalBackend } from '@e2e-col/signal-cli'
import { loadConfig, startSidecar } from '../src/index.ts'
import { createLogger } from '../src/ops/logger.ts'
import { A, baseEnv, connect, startToy } from './harness.ts'

describe('history at risk', () => {
  it("closes the affected document's sockets with 4409 when the backend asserts lost history", async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const config = loadConfig(baseEnv(toy, A, docId))
    const real = createHttpSignalBackend({ url: toy.url, account: A, timeoutMs: 5000, streamIdleMs: 60_000 })
    const lossSignal = new AbortController()
    const loss = new Promise<void>((resolve) => lossSignal.signal.addEventListener('abort', () => resolve()))
    // A backend that opens the real stream, then asserts that the group's history was lost.
    const backend: SignalBackend = {
      ...real,
      async openEvents(signal) {
        const stream = await real.openEvents(signal)
        return {
          close: () => stream.close(),
          [Symbol.asyncIterator]: () => ({
            async next(): Promise<IteratorResult<never>> {
              await loss
              throw new BroadcastRecoveryRequiredError(
                [config.documents[0]?.groupId ?? ''],
                'test backend lost messages',
              )
            },
          }),
        }
      },
    }
    const s = await startSidecar(config, { backend, logger: createLogger('silent') })
    onTestFinished(() => s.close())
    const c = await connect(s, docId)
    lossSignal.abort()
    expect((await c.closed).code).toBe(4409)
  })
})
