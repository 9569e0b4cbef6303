/**
 * HTTP layer: endpoints, status codes, empty bodies, content-type and Host checks (daemon-contract.md §6.1).
 */
import { expect } from 'vitest'
import { httpCall, rawStatus, rpcCall } from '../http-probe.ts'
import { expectRpcFailure } from '../client-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { UNKNOWN_NUMBER } from './account-routing.ts'
import { versionAtLeast } from '../target.ts'

const VERSION_CALL = JSON.stringify({ jsonrpc: '2.0', method: 'version', id: 1 })

function versionCallWithHost(host: string): string[] {
  return [
    'POST /api/v1/rpc HTTP/1.1',
    `Host: ${host}`,
    'Content-Type: application/json',
    `Content-Length: ${VERSION_CALL.length}`,
    '',
    VERSION_CALL,
  ]
}

export function registerHttpLayerCases(defineCase: DefineCase): void {
  defineCase(
    'any',
    'GET /api/v1/check answers 200 with an empty body and no JSON',
    async (t) => {
      const answer = await httpCall(t.url, '/api/v1/check')
      expect(answer.status).toBe(200)
      expect(answer.text).toBe('')
      expect(answer.headers['content-type']).toBeUndefined()
    },
    {
      client: async (_t, c) => {
        await expect(c.backend().check()).resolves.toBeUndefined()
      },
    },
  )

  defineCase('any', 'a wrong method is 405 with an empty body on every endpoint', async (t) => {
    for (const [method, path] of [
      ['POST', '/api/v1/check'],
      ['GET', '/api/v1/rpc'],
      ['POST', '/api/v1/events'],
      ['OPTIONS', '/api/v1/rpc'],
    ] as const) {
      const answer = await httpCall(t.url, path, {
        method,
        ...(method === 'POST' ? { body: '', headers: { 'content-type': 'application/json' } } : {}),
      })
      expect(answer.status, `${method} ${path}`).toBe(405)
      expect(answer.text).toBe('')
    }
  })

  defineCase('any', 'rpc without an application/json content type is 415; a charset parameter is fine', async (t) => {
    const plain = await httpCall(t.url, '/api/v1/rpc', {
      method: 'POST',
      body: VERSION_CALL,
      headers: { 'content-type': 'text/plain' },
    })
    expect(plain.status).toBe(415)
    expect(plain.text).toBe('')
    const none = await httpCall(t.url, '/api/v1/rpc', { method: 'POST', body: VERSION_CALL })
    expect(none.status).toBe(415)
    const charset = await rpcCall(t.url, VERSION_CALL, { 'content-type': 'application/json; charset=utf-8' })
    expect(charset.status).toBe(200)
  })

  defineCase(
    'any',
    'rpc answers are 200 application/json, JSON-RPC errors included',
    async (t) => {
      const ok = await rpcCall(t.url, VERSION_CALL)
      expect(ok.status).toBe(200)
      expect(String(ok.headers['content-type'])).toMatch(/^application\/json/)
      const failed = await rpcCall(t.url, { jsonrpc: '2.0', method: 'noSuchMethod', id: 2 })
      expect(failed.status).toBe(200)
      expect(String(failed.headers['content-type'])).toMatch(/^application\/json/)
    },
    {
      client: async (_t, c) => {
        // A JSON-RPC error in a 200 answer is the daemon's refusal, not an outage: SignalRpcError, never SignalUnavailableError.
        await expectRpcFailure(c.backend(UNKNOWN_NUMBER).listGroups(), -32602, 'Specified account does not exist')
      },
    },
  )

  defineCase(
    'any',
    'a longer path under an endpoint is an empty 404; a path outside all endpoints is 404 too',
    async (t) => {
      for (const path of ['/api/v1/rpcx', '/api/v1/check/more', '/api/v1/events/x']) {
        const answer = await httpCall(t.url, path)
        expect(answer.status, path).toBe(404)
        expect(answer.text, path).toBe('')
      }
      // The JDK server answers its own small HTML page here; the body is not part of the contract.
      expect((await httpCall(t.url, '/api/v2/rpc')).status).toBe(404)
      expect((await httpCall(t.url, '/')).status).toBe(404)
    },
  )

  defineCase('any', 'a query string on check is ignored', async (t) => {
    expect((await httpCall(t.url, '/api/v1/check?x=1')).status).toBe(200)
  })

  defineCase('any', 'a foreign Host header is refused with 421 on rpc from 0.14.4 on, never on check', async (t) => {
    const port = new URL(t.url).port
    const request = [
      'POST /api/v1/rpc HTTP/1.1',
      'Host: evil.example',
      'Content-Type: application/json',
      `Content-Length: ${VERSION_CALL.length}`,
      '',
      VERSION_CALL,
    ]
    const status = await rawStatus(t.url, request)
    // 0.13.19 has no Host check (it arrived in 0.14.4): both answers are real signal-cli behaviour.
    expect(status).toBe(versionAtLeast(t.version, '0.14.4') ? 421 : 200)
    expect(await rawStatus(t.url, ['GET /api/v1/check HTTP/1.1', 'Host: evil.example'])).toBe(200)
    expect(await rawStatus(t.url, ['GET /api/v1/check HTTP/1.1', `Host: localhost:${port}`])).toBe(200)
  })

  defineCase(
    'any',
    'Host 127.0.0.1 or localhost with the bound port is accepted; a wrong port is not (0.14.4+)',
    async (t) => {
      const port = Number(new URL(t.url).port)
      expect(await rawStatus(t.url, versionCallWithHost(`127.0.0.1:${port}`))).toBe(200)
      expect(await rawStatus(t.url, versionCallWithHost(`LOCALHOST:${port}`))).toBe(200)
      expect(await rawStatus(t.url, versionCallWithHost(`127.0.0.1:${port === 65535 ? port - 1 : port + 1}`))).toBe(
        versionAtLeast(t.version, '0.14.4') ? 421 : 200,
      )
    },
  )

  defineCase('toy', 'a request without any Host header is refused with 421 (0.14.4+ rule)', async (t) => {
    const status = await rawStatus(t.url, [
      'POST /api/v1/rpc HTTP/1.1',
      'Content-Type: application/json',
      `Content-Length: ${VERSION_CALL.length}`,
      '',
      VERSION_CALL,
    ])
    expect(status).toBe(421)
  })
}
