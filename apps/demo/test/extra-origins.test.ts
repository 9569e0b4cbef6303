/**
 * `npm start` with E2E_COL_ALLOWED_ORIGINS: the demo's sidecars accept pages from those origins
 * too (an app of the person's own on another port), and still refuse any other.
 */
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { describe, expect, test } from 'vitest'
import { useDemoStack } from './pages.ts'

/** The status a WebSocket upgrade from a page of `origin` is answered with (101: accepted). */
function upgradeStatus(url: string, origin: string): Promise<number> {
  const { hostname, port, pathname } = new URL(url)
  const headers = {
    connection: 'Upgrade',
    upgrade: 'websocket',
    origin,
    'sec-websocket-version': '13',
    'sec-websocket-key': randomBytes(16).toString('base64'),
  }
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: pathname, headers })
    req.on('upgrade', (res, socket) => {
      socket.destroy()
      resolve(res.statusCode ?? 0)
    })
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('extra page origins of the demo stack', () => {
  const run = useDemoStack({
    page: false,
    sidecarPorts: [0, 0],
    extraOrigins: ['http://127.0.0.1:3999'],
    sidecarEnv: { E2E_COL_LOG_LEVEL: 'silent' },
  })

  test('a page from an extra origin connects; one from elsewhere is refused', async () => {
    const url = `${run.stack.sidecarUrl('alice')}/v1/docs/${run.stack.docId}`
    expect(await upgradeStatus(url, 'http://127.0.0.1:3999')).toBe(101)
    expect(await upgradeStatus(url, 'http://127.0.0.1:4000')).toBe(403)
  })
})
