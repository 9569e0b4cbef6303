/**
 * `npm start` with E2E_COL_ALLOWED_ORIGINS: the demo's sidecars accept pages from those origins
 * too (an app of the person's own on another port), and still refuse any other.
 */
import { describe, expect, test } from 'vitest'
import { WebSocket } from 'ws'
import { useDemoStack } from './pages.ts'

/**
 * How a sidecar answers a page of `origin`: 'open' when the socket stays open, else the close
 * code and reason it closes it with at once (a refused origin is named in the reason).
 */
function answerTo(url: string, origin: string): Promise<'open' | { code: number; reason: string }> {
  const ws = new WebSocket(url, { origin })
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    ws.on('open', () => {
      // A refused origin is closed right after the upgrade; an allowed one stays open.
      timer = setTimeout(() => {
        resolve('open')
        ws.close()
      }, 500)
    })
    ws.on('close', (code, reason) => {
      clearTimeout(timer)
      resolve({ code, reason: reason.toString() })
    })
    ws.on('error', reject)
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
    expect(await answerTo(url, 'http://127.0.0.1:3999')).toBe('open')
    expect(await answerTo(url, 'http://127.0.0.1:4000')).toEqual({
      code: 4403,
      reason: 'http://127.0.0.1:4000 is not allowed: add it to E2E_COL_ALLOWED_ORIGINS',
    })
  })
})
