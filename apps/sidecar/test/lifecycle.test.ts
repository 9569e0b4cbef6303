import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import { A, baseEnv, connect, envelope, isAck, startToy } from './harness.ts'

const BIN = fileURLToPath(new URL('../bin/e2e-col-sidecar.js', import.meta.url))

describe('process lifecycle', () => {
  it('prints one ready line with its address, then on SIGTERM closes sockets with 1001 and exits 0', async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const child = spawn(process.execPath, [BIN], {
      env: { PATH: process.env['PATH'] ?? '', ...baseEnv(toy, A, docId, { E2E_COL_LOG_LEVEL: 'info' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    onTestFinished(() => void child.kill('SIGKILL'))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const lines: string[] = []
    const ready = await new Promise<{ url: string; msg: string }>((resolve, reject) => {
      let buf = ''
      let seenReady = false
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString()
        // Lines up to the ready line only: what is logged after it may share its chunk.
        for (let nl = buf.indexOf('\n'); nl >= 0 && !seenReady; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl)
          buf = buf.slice(nl + 1)
          lines.push(line)
          const json = JSON.parse(line) as { url?: string; msg: string }
          if (json.url !== undefined) {
            seenReady = true
            resolve({ url: json.url, msg: json.msg })
          }
        }
      })
      child.on('exit', () => reject(new Error('exited before ready')))
    })
    expect(ready.msg).toContain('ready')
    expect(lines).toHaveLength(1)
    expect(lines.join('\n')).not.toContain(A)
    const s = { url: ready.url, port: Number(new URL(ready.url).port), close: async () => {} }
    const c = await connect(s, docId)
    const m = envelope(docId, c.senderId)
    c.send(m)
    await c.waitFor(isAck(m.messageId))
    child.kill('SIGTERM')
    expect((await c.closed).code).toBe(1001)
    expect(await exited).toBe(0)
  })
})
