// The provisioning client against a scripted HTTP server: the requests it sends, the daemon's
// errors kept as SignalRpcError (numbers masked), and a daemon that is not there.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { SignalRpcError, SignalUnavailableError } from './errors.ts'
import { createProvisioningClient } from './provisioning.ts'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

/** A daemon that answers each request with `answer(body)` (a JSON-RPC result or error). */
async function daemon(
  answer: (request: { method: string; params?: Record<string, unknown>; id: number }) => {
    result?: unknown
    error?: unknown
    status?: number
    delayMs?: number
  },
): Promise<string> {
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (d: Buffer) => {
      text += d.toString()
    })
    req.on('end', () => {
      const request = JSON.parse(text) as { method: string; params?: Record<string, unknown>; id: number }
      const a = answer(request)
      setTimeout(() => {
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            ...(a.error === undefined ? { result: a.result } : { error: a.error }),
            id: request.id,
          }),
        )
      }, a.delayMs ?? 0)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('createProvisioningClient', () => {
  it('sends startLink, finishLink with the device name, register and verify with the account', async () => {
    const seen: { method: string; params?: Record<string, unknown> }[] = []
    const url = await daemon((r) => {
      seen.push({ method: r.method, ...(r.params === undefined ? {} : { params: r.params }) })
      if (r.method === 'startLink') return { result: { deviceLinkUri: 'sgnl://linkdevice?uuid=a&pub_key=b' } }
      if (r.method === 'finishLink') return { result: { number: '+15551234567' }, delayMs: 300 }
      return { result: {} }
    })
    const client = createProvisioningClient({ url, timeoutMs: 200 })
    expect(await client.startLink()).toBe('sgnl://linkdevice?uuid=a&pub_key=b')
    // finishLink waits longer than one call's deadline: its wait is added.
    expect(await client.finishLink('sgnl://linkdevice?uuid=a&pub_key=b', 'e2e-col on host', 1_000)).toBe('+15551234567')
    await client.register('+15551234567', { captcha: 'signalcaptcha://x', voice: true })
    await client.verify('+15551234567', '123456', '4321')
    expect(seen).toEqual([
      { method: 'startLink' },
      {
        method: 'finishLink',
        params: { deviceLinkUri: 'sgnl://linkdevice?uuid=a&pub_key=b', deviceName: 'e2e-col on host' },
      },
      { method: 'register', params: { account: '+15551234567', captcha: 'signalcaptcha://x', voice: true } },
      { method: 'verify', params: { account: '+15551234567', verificationCode: '123456', pin: '4321' } },
    ])
  })

  it('keeps the daemon error code and message, with phone numbers masked', async () => {
    const url = await daemon(() => ({
      error: { code: -1, message: 'The user +15551234567 already exists', data: null },
    }))
    const error = await createProvisioningClient({ url })
      .finishLink('sgnl://x', 'n', 10)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignalRpcError)
    expect((error as SignalRpcError).rpcCode).toBe(-1)
    expect((error as SignalRpcError).rpcMessage).toBe('The user +15…67 already exists')
  })

  it('reports a daemon that is not there, one that answers 500, and one that does not answer in time', async () => {
    const gone = createProvisioningClient({ url: 'http://127.0.0.1:1' })
    await expect(gone.version()).rejects.toBeInstanceOf(SignalUnavailableError)
    const broken = await daemon(() => ({ status: 500, result: {} }))
    await expect(createProvisioningClient({ url: broken }).version()).rejects.toThrow(
      'signal-cli version answered HTTP 500',
    )
    const slow = await daemon(() => ({ result: { version: 'x' }, delayMs: 2_000 }))
    await expect(createProvisioningClient({ url: slow, timeoutMs: 200 }).version()).rejects.toThrow(
      /version failed \(no answer within/,
    )
  })
})
