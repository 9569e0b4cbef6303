import { encodeEnvelope, FLAGS } from '@e2e-col/protocol'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { createLogger } from '../src/ops/logger.ts'
import { baseEnv, connect, envelope, isAck, isMessage, isSent, sidecar, startToy, type Client, A } from './harness.ts'

async function oneSidecar(extra: Record<string, string> = {}) {
  const toy = await startToy()
  const docId = randomUUID()
  const s = await sidecar(
    baseEnv(toy, A, docId, { E2E_COL_MAX_FRAME_BYTES: '4096', E2E_COL_ABUSE_LIMIT: '3', ...extra }),
  )
  return { toy, docId, s }
}

function errorCodes(c: Client): string[] {
  return c.received
    .filter((e) => e.kind === 'error')
    .map((e) => (JSON.parse(new TextDecoder().decode(e.payload)) as { code: string }).code)
}

/** The bystander still works: its envelope is acknowledged and sent. */
async function stillWorks(c: Client, docId: string): Promise<void> {
  const m = envelope(docId, c.senderId)
  c.send(m)
  await c.waitFor(isAck(m.messageId))
  await c.waitFor(isSent(m.messageId))
}

async function upgradeStatus(url: string, origin?: string): Promise<number> {
  const ws = new WebSocket(url, origin === undefined ? {} : { origin })
  return new Promise((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.on('open', () => {
      ws.close()
      resolve(101)
    })
  })
}

/** The close a page of a refused origin gets right after its upgrade: code and reason. */
async function originClose(url: string, origin: string): Promise<{ code: number; reason: string }> {
  const ws = new WebSocket(url, { origin })
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => reject(new Error(`upgrade refused with ${res.statusCode}`)))
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))
  })
}
const refusalOf = (origin: string) => ({
  code: 4403,
  reason: `${origin} is not allowed: add it to E2E_COL_ALLOWED_ORIGINS`,
})

describe('browser connections are checked one by one', () => {
  it('answers an undecodable frame with an error envelope carrying the protocol code, then closes with 1008 after repeated abuse', async () => {
    const { docId, s } = await oneSidecar()
    const [bad, bystander] = await Promise.all([connect(s, docId), connect(s, docId)])
    bad.ws.send(new Uint8Array([1, 2, 3]))
    await bad.waitFor((e) => e.kind === 'error')
    expect(errorCodes(bad)[0]).toMatch(/^PROTO_/)
    bad.ws.send(new Uint8Array([4]))
    bad.ws.send(new Uint8Array([5]))
    expect((await bad.closed).code).toBe(1008)
    await stillWorks(bystander, docId)
  })

  it('refuses an envelope for another document and a kind browsers may not send, naming the message', async () => {
    const { docId, s } = await oneSidecar()
    const [c, bystander] = await Promise.all([connect(s, docId), connect(s, docId)])
    const other = envelope(randomUUID(), c.senderId)
    c.send(other)
    const e1 = await c.waitFor((e) => e.kind === 'error' && e.messageId === other.messageId)
    expect(e1.docId).toBe(docId)
    const batch = envelope(docId, c.senderId, 4, 'ack')
    c.send(batch)
    await c.waitFor((e) => e.kind === 'error' && e.messageId === batch.messageId)
    expect(errorCodes(c)).toEqual(['SIDECAR_WRONG_DOCUMENT', 'SIDECAR_KIND_NOT_ALLOWED'])
    expect(bystander.received.some(isMessage(other.messageId))).toBe(false)
    await stillWorks(bystander, docId)
  })

  it('refuses the deflated flag from a browser (it is only for the hop between sidecars) and sends nothing to Signal', async () => {
    const { toy, docId, s } = await oneSidecar()
    const c = await connect(s, docId)
    const flagged = { ...envelope(docId, c.senderId), flags: FLAGS.deflated }
    c.send(flagged)
    await c.waitFor((e) => e.kind === 'error' && e.messageId === flagged.messageId)
    expect(errorCodes(c)).toEqual(['SIDECAR_FLAG_NOT_ALLOWED'])
    await stillWorks(c, docId)
    expect(toy.sends()).toHaveLength(1)
  })

  it('keeps one sender id per connection', async () => {
    const { docId, s } = await oneSidecar()
    const c = await connect(s, docId)
    await stillWorks(c, docId)
    const m = envelope(docId, randomUUID())
    c.send(m)
    await c.waitFor((e) => e.kind === 'error' && e.messageId === m.messageId)
    expect(errorCodes(c)).toEqual(['SIDECAR_SENDER_CHANGED'])
  })

  it('closes a connection that keeps sending text frames with 1003', async () => {
    const { docId, s } = await oneSidecar()
    const [c, bystander] = await Promise.all([connect(s, docId), connect(s, docId)])
    for (let i = 0; i < 3; i++) c.ws.send('hello')
    expect((await c.closed).code).toBe(1003)
    expect(errorCodes(c)).toEqual(['SIDECAR_TEXT_FRAME', 'SIDECAR_TEXT_FRAME', 'SIDECAR_TEXT_FRAME'])
    await stillWorks(bystander, docId)
  })

  it('closes a connection that sends an oversize frame with 1009', async () => {
    const { docId, s } = await oneSidecar()
    const [c, bystander] = await Promise.all([connect(s, docId), connect(s, docId)])
    c.ws.send(encodeEnvelope(envelope(docId, c.senderId, 8192)))
    expect((await c.closed).code).toBe(1009)
    await stillWorks(bystander, docId)
  })

  it('bounds the frame rate of one connection', async () => {
    const { docId, s } = await oneSidecar({
      E2E_COL_FRAMES_PER_SECOND: '1',
      E2E_COL_FRAME_BURST: '2',
      E2E_COL_ABUSE_LIMIT: '2',
    })
    const c = await connect(s, docId)
    for (let i = 0; i < 4; i++) c.send(envelope(docId, c.senderId))
    expect((await c.closed).code).toBe(1008)
    expect(errorCodes(c)).toContain('SIDECAR_RATE_LIMITED')
  })

  it('closes a disallowed Origin at once with 4403 naming it; refuses an unmapped document and a foreign path before upgrading', async () => {
    const { docId, s } = await oneSidecar({ E2E_COL_ALLOWED_ORIGINS: 'https://docs.example.org' })
    const ws = s.url.replace('http', 'ws')
    expect(await originClose(`${ws}/v1/docs/${docId}`, 'https://evil.example')).toEqual(
      refusalOf('https://evil.example'),
    )
    expect(await originClose(`${ws}/v1/docs/${docId}`, 'http://localhost:5173')).toEqual(
      refusalOf('http://localhost:5173'),
    )
    expect(await upgradeStatus(`${ws}/v1/docs/${randomUUID()}`, 'https://docs.example.org')).toBe(404)
    expect(await upgradeStatus(`${ws}/v2/other`, 'https://docs.example.org')).toBe(404)
    expect(await upgradeStatus(`${ws}/v1/docs/${docId}`, 'https://docs.example.org')).toBe(101)
  })

  it('names a refused page origin in its log once, with the setting that would let it in', async () => {
    const toy = await startToy()
    const docId = randomUUID()
    const lines: string[] = []
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) })
    const s = await sidecar(baseEnv(toy, A, docId, { E2E_COL_ALLOWED_ORIGINS: 'https://docs.example.org' }), {
      logger,
    })
    const ws = s.url.replace('http', 'ws')
    for (let i = 0; i < 3; i++)
      expect(await originClose(`${ws}/v1/docs/${docId}`, 'http://127.0.0.1:3000')).toEqual(
        refusalOf('http://127.0.0.1:3000'),
      )
    const refusals = lines.map((l) => JSON.parse(l) as { msg: string; origin?: string }).filter((l) => l.origin)
    expect(refusals).toHaveLength(1)
    expect(refusals[0]?.origin).toBe('http://127.0.0.1:3000')
    expect(refusals[0]?.msg).toMatch(
      /refused a page from http:\/\/127\.0\.0\.1:3000: add it to E2E_COL_ALLOWED_ORIGINS/,
    )
  })
})
