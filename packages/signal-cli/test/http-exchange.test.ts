import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { SignalCliError, SignalUnavailableError } from '../src/errors.ts'
import { createHttpSignalBackend } from '../src/http-backend.ts'
import { discard, exchange, MAX_RPC_RESPONSE_BYTES, readCapped } from '../src/http-exchange.ts'
import { fakeDaemon, type FakeDaemon } from './fake-daemon.ts'

const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const daemons: FakeDaemon[] = []
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.close()))
})

async function started(answer: Parameters<typeof fakeDaemon>[0]): Promise<FakeDaemon> {
  const d = await fakeDaemon(answer)
  daemons.push(d)
  return d
}

const sent = (id: unknown) =>
  ({
    status: 200,
    text: JSON.stringify({ jsonrpc: '2.0', id, result: { timestamp: 1 } }),
    type: 'application/json',
  }) as const

function idOf(body: string): unknown {
  return (JSON.parse(body) as { id: unknown }).id
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => expect.unreachable('expected a rejection'),
    (e: unknown) => e,
  )
}

describe('a request to the daemon over node:http', () => {
  it('fails a call whose answer never comes as unavailable, naming the deadline', async () => {
    const d = await started(() => 'hold')
    const backend = createHttpSignalBackend({ url: d.origin, account: undefined, timeoutMs: 200, streamIdleMs: 60_000 })
    const e = await caught(backend.sendGroupMessage(GROUP, 'x'))
    expect(e).toBeInstanceOf(SignalUnavailableError)
    expect((e as Error).message).toBe('signal-cli send failed: HEADERS_TIMEOUT')
  })

  it('cuts an events stream silent for longer than the idle bound, as unavailable', async () => {
    const d = await started(() => 'silent-body')
    const backend = createHttpSignalBackend({ url: d.origin, account: undefined, timeoutMs: 2000, streamIdleMs: 200 })
    const stream = await backend.openEvents(new AbortController().signal)
    const e = await caught(
      (async () => {
        for await (const _ of stream);
      })(),
    )
    expect(e).toBeInstanceOf(SignalUnavailableError)
    expect((e as Error).message).toBe('signal-cli events stream cut: BODY_TIMEOUT')
  })

  it('reads the events a stream carries, then ends when the daemon ends it', async () => {
    const envelope = {
      account: '+33600000001',
      envelope: {
        sourceNumber: '+33700000000',
        timestamp: 5,
        dataMessage: { timestamp: 5, message: 'hi', groupInfo: { groupId: GROUP, type: 'DELIVER' } },
      },
    }
    const d = await started(() => ({
      status: 200,
      type: 'text/event-stream',
      text: `:\n\nevent:receive\ndata:${JSON.stringify(envelope)}\n\n`,
    }))
    const backend = createHttpSignalBackend({ url: d.origin, account: undefined, timeoutMs: 2000, streamIdleMs: 2000 })
    const events = []
    for await (const event of await backend.openEvents(new AbortController().signal)) events.push(event)
    expect(events).toMatchObject([{ type: 'message', groupId: GROUP, body: 'hi' }])
  })

  it('stops an events stream when its signal aborts', async () => {
    const d = await started(() => 'silent-body')
    const backend = createHttpSignalBackend({
      url: d.origin,
      account: undefined,
      timeoutMs: 2000,
      streamIdleMs: 60_000,
    })
    const abort = new AbortController()
    const stream = await backend.openEvents(abort.signal)
    const reading = caught(
      (async () => {
        for await (const _ of stream);
      })(),
    )
    abort.abort()
    expect(await reading).toBeInstanceOf(SignalUnavailableError)
  })

  it('refuses a response larger than its bound, typed', async () => {
    const big = 'x'.repeat(1024)
    const body = (async function* () {
      for (let i = 0; i < 5; i++) yield Buffer.from(big)
    })()
    const e = await caught(readCapped(body, 4096))
    expect(e).toBeInstanceOf(SignalCliError)
    expect((e as SignalCliError).code).toBe('SIDECAR_SIGNAL_BAD_RESPONSE')
    expect(MAX_RPC_RESPONSE_BYTES).toBe(16 * 1024 * 1024)
  })

  it('reads at most 64 KiB of an unwanted body, then closes its connection', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(500)
      const chunk = Buffer.alloc(16 * 1024)
      // Endless: only the reader stopping ends it.
      const more = (): void => {
        while (res.write(chunk));
      }
      res.on('drain', more)
      more()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      const answer = await exchange(undefined, `http://127.0.0.1:${port}/`, {
        method: 'GET',
        headersTimeoutMs: 2000,
        bodyIdleMs: 2000,
      })
      await discard(answer.body)
      expect(answer.body.destroyed).toBe(true)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('keeps its connection between calls', async () => {
    const d = await started((r) => sent(idOf(r.body)))
    const backend = createHttpSignalBackend({
      url: d.origin,
      account: undefined,
      timeoutMs: 2000,
      streamIdleMs: 60_000,
    })
    for (let i = 0; i < 3; i++) await backend.sendGroupMessage(GROUP, `m${i}`)
    expect(d.connections()).toBe(1)
    await backend.close()
  })

  it('refuses a call asked after closing, without sending it', async () => {
    const d = await started((r) => sent(idOf(r.body)))
    const backend = createHttpSignalBackend({
      url: d.origin,
      account: undefined,
      timeoutMs: 2000,
      streamIdleMs: 60_000,
    })
    await backend.close()
    const e = await caught(backend.sendGroupMessage(GROUP, 'late'))
    expect(e).toBeInstanceOf(SignalUnavailableError)
    expect(d.seen).toHaveLength(0)
  })

  it('closing waits for the calls already asked, then ends the connections', async () => {
    let release: (() => void) | undefined
    const d = await started((r) => {
      if (release === undefined) {
        const id = idOf(r.body)
        return { later: new Promise((resolve) => (release = () => resolve(sent(id)))) }
      }
      return sent(idOf(r.body))
    })
    const backend = createHttpSignalBackend({
      url: d.origin,
      account: undefined,
      timeoutMs: 2000,
      streamIdleMs: 60_000,
    })
    const sending = backend.sendGroupMessage(GROUP, 'x')
    await d.untilSeen(1)
    let closed = false
    const closing = backend.close().then(() => (closed = true))
    await new Promise((resolve) => setImmediate(resolve))
    expect(closed).toBe(false)
    release?.()
    await expect(sending).resolves.toMatchObject({ timestamp: 1 })
    await closing
    expect(closed).toBe(true)
  })
})
