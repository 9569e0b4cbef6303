/**
 * `npm start` with E2E_COL_ALLOWED_ORIGINS: the demo's sidecars accept pages from those origins
 * too (an app of the person's own on another port), and still refuse any other.
 */
import { describe, expect, test } from 'vitest'
import { WebSocket } from 'ws'
import { useDemoStack } from './pages.ts'

function upgradeStatus(url: string, origin: string): Promise<number> {
  const ws = new WebSocket(url, { origin })
  return new Promise((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
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
