/**
 * Opt-in smoke test against real Signal: one `health` envelope goes sidecar A → signal-cli A →
 * Signal → signal-cli B → sidecar B. It performs no registration, linking or group change; both
 * daemons must already be linked and members of the given group.
 *
 *   E2E_COL_REAL_SIGNAL_SMOKE=1
 *   E2E_COL_SMOKE_A_URL, E2E_COL_SMOKE_A_ACCOUNT   daemon and account of sidecar A
 *   E2E_COL_SMOKE_B_URL, E2E_COL_SMOKE_B_ACCOUNT   daemon and account of sidecar B
 *   E2E_COL_SMOKE_GROUP_ID                         base64 id of a group both accounts are in
 *   E2E_COL_SMOKE_BODY_MAX_BYTES                   body boundary (at most 2000)
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { decodeEnvelope, encodeEnvelope } from '@e2e-col/protocol'
import { describe, expect, it, onTestFinished } from 'vitest'
import { WebSocket } from 'ws'
import { loadConfig } from './config.ts'
import { startSidecar } from './sidecar.ts'

const env = process.env
const SETTINGS = [
  'E2E_COL_REAL_SIGNAL_SMOKE',
  'E2E_COL_SMOKE_A_URL',
  'E2E_COL_SMOKE_A_ACCOUNT',
  'E2E_COL_SMOKE_B_URL',
  'E2E_COL_SMOKE_B_ACCOUNT',
  'E2E_COL_SMOKE_GROUP_ID',
  'E2E_COL_SMOKE_BODY_MAX_BYTES',
] as const
const missing = SETTINGS.find((name) =>
  name === 'E2E_COL_REAL_SIGNAL_SMOKE' ? env[name] !== '1' : (env[name] ?? '') === '',
)
const reason =
  missing === undefined
    ? ''
    : `real-Signal smoke skipped: ${missing} is not set${missing === 'E2E_COL_REAL_SIGNAL_SMOKE' ? ' to 1' : ''}`
if (missing !== undefined) console.log(reason)

function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url)
  onTestFinished(() => ws.terminate())
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

describe.skipIf(missing !== undefined)('real Signal smoke', () => {
  it(
    `carries one health envelope from sidecar A to sidecar B through Signal${reason === '' ? '' : ` (${reason})`}`,
    { timeout: 120_000 },
    async () => {
      const docId = randomUUID()
      const common = {
        E2E_COL_DOCUMENTS: `${docId}=${env['E2E_COL_SMOKE_GROUP_ID'] ?? ''}`,
        E2E_COL_SIGNAL_BODY_MAX_BYTES: env['E2E_COL_SMOKE_BODY_MAX_BYTES'] ?? '',
        E2E_COL_LISTEN: '127.0.0.1:0',
        E2E_COL_LOG_LEVEL: 'warn',
        ...(env['E2E_COL_ALLOW_REMOTE_DAEMON'] === undefined
          ? {}
          : { E2E_COL_ALLOW_REMOTE_DAEMON: env['E2E_COL_ALLOW_REMOTE_DAEMON'] }),
      }
      /** The sidecar of side `side` (its daemon and account from E2E_COL_SMOKE_<side>_*), closed after the test. */
      const start = async (side: 'A' | 'B') => {
        const s = await startSidecar(
          loadConfig({
            ...common,
            SIGNAL_CLI_URL: env[`E2E_COL_SMOKE_${side}_URL`],
            SIGNAL_CLI_ACCOUNT: env[`E2E_COL_SMOKE_${side}_ACCOUNT`],
          }),
        )
        onTestFinished(() => s.close())
        return s
      }
      const a = await start('A')
      const b = await start('B')
      const [wsA, wsB] = await Promise.all([
        open(`${a.url.replace('http', 'ws')}/v1/docs/${docId}`),
        open(`${b.url.replace('http', 'ws')}/v1/docs/${docId}`),
      ])
      const messageId = randomBytes(16).toString('hex')
      const arrived = new Promise<Uint8Array>((resolve) =>
        wsB.on('message', (data: Buffer) => {
          const e = decodeEnvelope(new Uint8Array(data))
          if (e.messageId === messageId) resolve(e.payload)
        }),
      )
      const acked = new Promise<void>((resolve) =>
        wsA.on('message', (data: Buffer) => {
          const e = decodeEnvelope(new Uint8Array(data))
          if (e.kind === 'ack' && e.messageId === messageId) resolve()
        }),
      )
      const payload = new TextEncoder().encode(`smoke ${new Date().toISOString()}`)
      wsA.send(encodeEnvelope({ kind: 'health', flags: 0, docId, senderId: randomUUID(), messageId, seq: 0, payload }))
      await acked
      expect(new TextDecoder().decode(await arrived)).toBe(new TextDecoder().decode(payload))
    },
  )
})
