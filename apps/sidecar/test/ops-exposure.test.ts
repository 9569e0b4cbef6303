/**
 * What a web page or another host can read from the listener (docs/reliability.md §2.4):
 * `/healthz` and `/metrics` name the open documents, so they answer only a loopback `Host` (a
 * DNS-rebinding page is 421) and an allowed `Origin` (403); a listener beyond loopback needs
 * E2E_COL_ALLOW_NON_LOOPBACK=1, warns, and does not believe a loopback `Host` from another host.
 */
import { request } from 'node:http'
import { randomUUID } from 'node:crypto'
import { networkInterfaces } from 'node:os'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { captureLogs } from '../src/ops/log-fixture.ts'
import { A, baseEnv, connect, sidecar, startToy } from './harness.ts'

/** One GET from this machine to `address` (any Host and headers); the status and the body. */
function get(
  address: string,
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path, headers, setHost: false }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }))
    })
    req.on('error', reject)
    req.end()
  })
}

function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  const ws = new WebSocket(url, { headers })
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
    ws.on('error', reject)
  })
}

// An address of this machine that is not loopback: a request to it comes from a non-loopback peer.
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address
if (lanAddress === undefined)
  console.warn('listening beyond loopback skipped: this machine has no non-loopback IPv4 address')

describe('/healthz and /metrics', () => {
  it('answer a loopback Host without Origin or with an allowed one; a rebinding page gets 421, another origin 403', async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const s = await sidecar(baseEnv(toy, A, docId))
    const page = await connect(s, docId)
    const loopback = { host: `127.0.0.1:${s.port}` }
    for (const path of ['/healthz', '/metrics']) {
      // A DNS-rebinding page reaches 127.0.0.1 under its own name and sends no Origin on a GET.
      const rebound = await get('127.0.0.1', s.port, path, {
        host: `evil.example:${s.port}`,
        'sec-fetch-site': 'same-origin',
      })
      expect([rebound.status, JSON.parse(rebound.body).error.code]).toEqual([421, 'API_HOST_NOT_ALLOWED'])
      const crossOrigin = await get('127.0.0.1', s.port, path, { ...loopback, origin: 'http://evil.example' })
      expect([crossOrigin.status, JSON.parse(crossOrigin.body).error.code]).toEqual([403, 'API_ORIGIN_NOT_ALLOWED'])
      const noCors = await get('127.0.0.1', s.port, path, { ...loopback, 'sec-fetch-site': 'cross-site' })
      expect(noCors.status).toBe(403)
      for (const refused of [rebound, crossOrigin, noCors]) expect(refused.body).not.toContain(docId)
      expect(
        (await get('127.0.0.1', s.port, path, { host: `localhost:${s.port}`, origin: `http://localhost:5173` })).status,
      ).not.toBeGreaterThanOrEqual(400)
    }
    // The person's own tools (no Origin) still read the per-document series.
    const own = await get('127.0.0.1', s.port, '/metrics', loopback)
    expect(own.status).toBe(200)
    expect(own.body).toContain(`e2e_col_open_connections{doc="${docId}"} 1`)
    page.ws.close()
  }, 30_000)
})

describe.skipIf(lanAddress === undefined)(
  `listening beyond loopback (skipped when this machine has no non-loopback IPv4 address: ${lanAddress ?? 'none'})`,
  () => {
    it('needs the opt-in, warns, and refuses a loopback Host from another host on every path', async () => {
      const address = lanAddress ?? ''
      const toy = await startToy()
      const docId = randomUUID()
      const logs = captureLogs('warn')
      const s = await sidecar(
        baseEnv(toy, A, docId, { E2E_COL_LISTEN: '0.0.0.0:0', E2E_COL_ALLOW_NON_LOOPBACK: '1' }),
        { logger: logs.logger },
      )
      expect(logs.lines.map((l) => l.msg)).toContainEqual(
        expect.stringMatching(/^listening beyond loopback on 0\.0\.0\.0/),
      )
      const claimed = { host: `127.0.0.1:${s.port}` }
      // From another host, naming 127.0.0.1 reaches nothing: the API, health, metrics, a document.
      for (const path of ['/v1/docs', '/v1/invites', '/healthz', '/metrics'])
        expect([path, (await get(address, s.port, path, claimed)).status]).toEqual([path, 421])
      expect(await upgradeStatus(`ws://${address}:${s.port}/v1/docs/${docId}`, claimed)).toBe(421)
      expect(
        await upgradeStatus(`ws://${address}:${s.port}/v1/docs/${docId}`, {
          ...claimed,
          origin: `http://127.0.0.1:${s.port}`,
        }),
      ).toBe(421)
      // From this machine the same requests are served.
      expect((await get('127.0.0.1', s.port, '/v1/docs', claimed)).status).toBe(200)
      expect((await get('127.0.0.1', s.port, '/healthz', claimed)).status).toBe(200)
      expect(await upgradeStatus(`ws://127.0.0.1:${s.port}/v1/docs/${docId}`, {})).toBe(101)
    }, 30_000)
  },
)
