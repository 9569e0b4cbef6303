/**
 * Operators see a rejected send and the shutdown sequence in the logs, as counts and codes only:
 * never the body, the payload or a full phone number (§4.8).
 */
import { encodeBody, encodeEnvelope } from '@e2e-col/protocol'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { captureLogs } from '../src/ops/log-fixture.ts'
import { A, B, baseEnv, connect, envelope, sidecar, startToy } from './harness.ts'

describe('sidecar logs', () => {
  it('log a rejected send with its code and count, and none of its body, payload or numbers', async () => {
    const toy = await startToy()
    const docId = crypto.randomUUID()
    const log = captureLogs()
    // The rejected body carries the page's edit alone: the announcement of its author is off here.
    const s = await sidecar(baseEnv(toy, A, docId, { E2E_COL_ANNOUNCE_AUTHORS: '0' }), { logger: log.logger })
    const a1 = await connect(s, docId)
    const marker = `secret-text-${randomBytes(8).toString('hex')}`
    const doc = new Y.Doc()
    doc.getText('t').insert(0, marker)
    const m = envelope(docId, a1.senderId, Y.encodeStateAsUpdate(doc))
    toy.faults.failNextSendsWith(1, { code: -1, message: `Failed to send message to ${B}: ${marker}` })
    a1.send(m)
    await a1.waitFor((e) => e.kind === 'error' && e.messageId === m.messageId)

    const rejected = log.lines.filter((l) => l.msg.startsWith('send rejected by signal-cli'))
    expect(rejected).toHaveLength(1)
    expect(rejected[0]).toMatchObject({ level: 40, code: 'SIDECAR_SEND_REJECTED', rpcCode: -1, envelopes: 1 })
    const text = log.text()
    const body = encodeBody(encodeEnvelope(m))
    expect(text).not.toContain(marker)
    expect(text).not.toContain(body.slice('e2e-col:v1:'.length, 60))
    expect(text).not.toContain(Buffer.from(m.payload).toString('base64').slice(0, 24))
    expect(text).not.toContain('e2e-col:v1:')
    expect(text).not.toContain(B)
  })

  it('log the shutdown once, with what the bounded flush left unsent', async () => {
    const toy = await startToy()
    const docId = crypto.randomUUID()
    const log = captureLogs()
    const s = await sidecar(baseEnv(toy, A, docId), { logger: log.logger })
    await connect(s, docId)
    await s.close()
    const lines = log.lines.filter((l) => l.msg.startsWith('sidecar shutting down'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: 30, reason: 'requested', unsentBytes: 0, sockets: 1 })
  })
})
