// createToySignal used in-process, as other workspaces' tests use it: bounds, modes, switches.
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_UNREAD_BYTES } from '../src/event-hub.ts'
import { MAX_GROUPS } from '../src/methods/groups.ts'
import { createToySignal, type ToySignal, type ToySignalOptions } from '../src/index.ts'

const A = '+15550000001'
const B = '+15550000002'
const running: ToySignal[] = []

async function start(options: ToySignalOptions): Promise<ToySignal> {
  const toy = await createToySignal(options)
  running.push(toy)
  return toy
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((t) => t.close()))
})

async function rpc(
  toy: ToySignal,
  method: string,
  params?: Record<string, unknown>,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${toy.url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method, id: 1, ...(params === undefined ? {} : { params }) }),
  })
  const text = await res.text()
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) }
}

/** Reads SSE text until `count` receive events arrived, then cancels. */
async function readEvents(url: string, count: number): Promise<any[]> {
  const res = await fetch(url)
  const reader = res.body?.getReader()
  if (reader === undefined) throw new Error('no body')
  let text = ''
  const decoder = new TextDecoder()
  for (;;) {
    // Only complete frames: the text after the last blank line may still be arriving.
    const frames = text
      .split('\n\n')
      .slice(0, -1)
      .filter((f) => f.includes('data:'))
    if (frames.length >= count) {
      await reader.cancel()
      return frames.slice(0, count).map((f) => JSON.parse(f.slice(f.indexOf('data:') + 5)))
    }
    const { value, done } = await reader.read()
    if (done) throw new Error(`stream ended after ${frames.length} events`)
    text += decoder.decode(value, { stream: true })
  }
}

describe('createToySignal', () => {
  it('creates groups with base64 ids of 32 bytes and records every send', async () => {
    const toy = await start({ accounts: [A, B], groups: [{ name: 'team', members: [A, B] }] })
    const [group] = toy.groups
    expect(Buffer.from(group?.id ?? '', 'base64')).toHaveLength(32)
    await rpc(toy, 'send', { account: A, groupId: group?.id, message: 'one' })
    await rpc(toy, 'send', { account: B, recipient: A, message: 'two' })
    expect(toy.sends().map((s) => [s.account, s.groupId, s.recipients, s.message])).toEqual([
      [A, group?.id, undefined, 'one'],
      [B, undefined, [A], 'two'],
    ])
  })

  it('routes to the only account when exactly one exists and account is omitted (v0.11.7+)', async () => {
    const toy = await start({ accounts: [A], groups: [{ name: 'solo', members: [A] }] })
    const { json } = await rpc(toy, 'listGroups')
    expect(json.result.map((g: { name: string }) => g.name)).toEqual(['solo'])
    // The sole member: no other recipients, still a success.
    const sent = await rpc(toy, 'send', { groupId: toy.groups[0]?.id, message: 'just me' })
    expect(sent.json.result.results).toEqual([])
  })

  it("delivers a Note to Self to the sender's own stream as a sync sentMessage to itself, and to no one else", async () => {
    const toy = await start({ accounts: [A, B] })
    await rpc(toy, 'send', { account: A, noteToSelf: true, message: 'accept 1' })
    const [event] = await readEvents(`${toy.url}/api/v1/events?account=%2B${A.slice(1)}`, 1)
    expect(event.account).toBe(A)
    expect(event.envelope.dataMessage).toBeUndefined()
    expect(event.envelope.syncMessage.sentMessage).toMatchObject({
      destinationNumber: A,
      message: 'accept 1',
    })
    expect(event.envelope.syncMessage.sentMessage).not.toHaveProperty('groupInfo')
    expect(toy.sends()).toEqual([
      expect.objectContaining({ account: A, recipients: [A], message: 'accept 1', urgent: true }),
    ])
  })

  it('keeps at most maxQueuedPerAccount messages for a closed stream, dropping the oldest', async () => {
    const lines: string[] = []
    const toy = await start({
      accounts: [A, B],
      groups: [{ name: 'team', members: [A, B] }],
      maxQueuedPerAccount: 2,
      log: (l) => lines.push(l),
    })
    for (const message of ['m1', 'm2', 'm3'])
      await rpc(toy, 'send', { account: A, groupId: toy.groups[0]?.id, message })
    const events = await readEvents(`${toy.url}/api/v1/events?account=%2B${B.slice(1)}`, 2)
    expect(events.map((e) => e.envelope.dataMessage.message)).toEqual(['m2', 'm3'])
    expect(lines.some((l) => l.includes('dropped its oldest message'))).toBe(true)
    expect(lines.join('\n')).not.toContain(B)
  })

  it('cuts a stream whose reader stopped reading once MAX_UNREAD_BYTES are buffered, and queues the rest', async () => {
    const lines: string[] = []
    const toy = await start({ accounts: [A, B], log: (l) => lines.push(l) })
    const stalled = await fetch(`${toy.url}/api/v1/events?account=%2B${B.slice(1)}`)
    const big = 'x'.repeat(256 * 1024)
    const needed = Math.ceil((MAX_UNREAD_BYTES * 2) / big.length)
    for (let i = 0; i < needed && !lines.some((l) => l.includes('not read')); i += 1) {
      await rpc(toy, 'send', { account: A, recipient: B, message: big })
    }
    expect(lines.some((l) => l.includes('not read'))).toBe(true)
    await stalled.body?.cancel().catch(() => {})
    // Whatever could not be written waits for the next stream.
    const [next] = await readEvents(`${toy.url}/api/v1/events?account=%2B${B.slice(1)}`, 1)
    expect(next.envelope.dataMessage.message).toBe(big)
  })

  it('refuses to create groups beyond MAX_GROUPS with a -1 error', async () => {
    const toy = await start({
      accounts: [A],
      groups: Array.from({ length: MAX_GROUPS - 1 }, (_, i) => ({ name: `g${i}`, members: [A] })),
    })
    expect((await rpc(toy, 'updateGroup', { name: 'last', members: [] })).json.result.groupId).toMatch(
      /^[A-Za-z0-9+/]{43}=$/,
    )
    const refused = await rpc(toy, 'updateGroup', { name: 'one too many', members: [] })
    expect(refused.json.error).toMatchObject({
      code: -1,
      message: expect.stringContaining(`at most ${MAX_GROUPS} groups`),
    })
  })

  it('refuses fault switches and hides /toy/v1/ unless faults are enabled', async () => {
    const toy = await start({ accounts: [A] })
    expect(() => toy.faults.failNextRpc(1)).toThrow(expect.objectContaining({ code: 'TOY_FAULTS_DISABLED' }))
    expect((await fetch(`${toy.url}/toy/v1/faults/reset`, { method: 'POST' })).status).toBe(404)
  })

  it('rate-limits the only recipient in per-recipient mode as all failed (-5), like signal-cli', async () => {
    const toy = await start({ accounts: [A, B], faults: true })
    toy.faults.rateLimitNextSends(1, { retryAfterSeconds: 5, mode: 'per-recipient' })
    const { json } = await rpc(toy, 'send', { account: A, recipient: B, message: 'x' })
    expect(json.error.code).toBe(-5)
    expect(toy.sends()).toEqual([])
    expect((await rpc(toy, 'send', { account: A, recipient: B, message: 'y' })).json.result.results[0].type).toBe(
      'SUCCESS',
    )
  })

  it('identity-fails the only recipient of a direct send as all failed (-4) and delivers nothing', async () => {
    const toy = await start({ accounts: [A, B], faults: true })
    toy.faults.identityFailNextSends(1, { mode: 'per-recipient' })
    const { json } = await rpc(toy, 'send', { account: A, recipient: B, message: 'x' })
    expect(json.error.code).toBe(-4)
    expect(json.error.data.response.results).toEqual([expect.objectContaining({ type: 'IDENTITY_FAILURE' })])
    expect(json.error.data.response.results[0]).not.toHaveProperty('groupId')
    expect(toy.sends()).toEqual([])
    const next = await rpc(toy, 'send', { account: A, recipient: B, message: 'y' })
    const [event] = await readEvents(`${toy.url}/api/v1/events?account=${encodeURIComponent(B)}`, 1)
    expect(event.envelope.dataMessage.message).toBe('y')
    expect(event.envelope.timestamp).toBe(next.json.result.timestamp)
  })

  it('fails sendReaction too with failNextSendsWith: every call that sends a message counts', async () => {
    const toy = await start({ accounts: [A, B], faults: true })
    toy.faults.failNextSendsWith(1, {
      code: -32603,
      message: 'Failed to send message: [413] Rate limit exceeded: 413 (RateLimitException) (UnexpectedErrorException)',
    })
    const { json } = await rpc(toy, 'sendReaction', {
      account: A,
      recipient: B,
      emoji: '👍',
      targetAuthor: B,
      targetTimestamp: 1_700_000_000_000,
    })
    expect(json.error).toEqual({ code: -32603, message: expect.stringContaining('[413]'), data: null })
  })

  it('answers events with the configured failure, in-process as over the admin route', async () => {
    const toy = await start({ accounts: [A], faults: true })
    toy.faults.failEvents(1, { status: 503 })
    const failed = await fetch(`${toy.url}/api/v1/events`)
    expect([failed.status, await failed.text()]).toEqual([503, ''])
    const admin = await fetch(`${toy.url}/toy/v1/faults/fail-events`, {
      method: 'POST',
      body: '{"n":1,"contentType":"application/json"}',
    })
    expect(admin.status).toBe(204)
    const wrong = await fetch(`${toy.url}/api/v1/events`)
    expect([wrong.status, wrong.headers.get('content-type')]).toEqual([200, 'application/json'])
    await wrong.text()
    const ok = await fetch(`${toy.url}/api/v1/events`)
    expect(ok.headers.get('content-type')).toBe('text/event-stream')
    await ok.body?.cancel()
  })

  it('answers -32602 for a real per-account command it lacks before saying -32601, and -32601 once routed', async () => {
    const toy = await start({ accounts: [A, B] })
    expect((await rpc(toy, 'sendReceipt', { recipient: B })).json.error).toEqual({
      code: -32602,
      message: 'Method requires valid account parameter',
      data: null,
    })
    expect((await rpc(toy, 'sendReceipt', { account: A, recipient: B })).json.error.code).toBe(-32601)
    const one = await start({ accounts: [A] })
    // Exactly one account: per-account commands fall back to it, registration commands do not.
    expect((await rpc(one, 'sendReceipt')).json.error.code).toBe(-32601)
    expect((await rpc(one, 'register')).json.error.code).toBe(-32602)
    expect((await rpc(one, 'deleteLocalAccountData')).json.error.code).toBe(-32602)
    expect((await rpc(one, 'deleteLocalAccountData', { account: '+15550000099' })).json.error.code).toBe(-32601)
    const single = await start({ singleAccount: A })
    expect((await rpc(single, 'sendReceipt', { account: '+15550000099' })).json.error.code).toBe(-32601)
  })

  it('treats configured unregistered numbers as off Signal, and refuses one that is also an account', async () => {
    const C = '+15550000003'
    const toy = await start({ accounts: [A, B], unregistered: [C], groups: [{ name: 'g', members: [A, B, C] }] })
    const status = await rpc(toy, 'getUserStatus', { account: A, recipient: [C] })
    expect(status.json.result).toEqual([{ recipient: C, number: C, uuid: null, isRegistered: false }])
    await expect(createToySignal({ accounts: [A], unregistered: [A] })).rejects.toMatchObject({
      code: 'TOY_CONFIG_INVALID',
    })
  })

  it('rejects invalid options with TOY_CONFIG_INVALID', async () => {
    await expect(createToySignal({ accounts: ['12345'] })).rejects.toMatchObject({ code: 'TOY_CONFIG_INVALID' })
    await expect(createToySignal({ unregistered: ['12345'] })).rejects.toMatchObject({ code: 'TOY_CONFIG_INVALID' })
    await expect(createToySignal({ keepAliveMs: 0 })).rejects.toMatchObject({ code: 'TOY_CONFIG_INVALID' })
    await expect(createToySignal({ groups: [{ name: 'g', members: [A], id: 'AAAA' }] })).rejects.toMatchObject({
      code: 'TOY_CONFIG_INVALID',
    })
  })

  it('answers 413 above the rpc body bound instead of buffering without limit', async () => {
    const toy = await start({ accounts: [A] })
    const res = await fetch(`${toy.url}/api/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(16 * 1024 * 1024 + 1),
    })
    expect(res.status).toBe(413)
  })

  it('close() ends open event streams and stops listening', async () => {
    const toy = await createToySignal({ accounts: [A], keepAliveMs: 50 })
    const res = await fetch(`${toy.url}/api/v1/events`)
    const reader = res.body?.getReader()
    await reader?.read()
    await toy.close()
    // A shutdown ends the stream abruptly (no closing chunk), as a real daemon's exit does.
    const drain = async (): Promise<void> => {
      for (;;) {
        const r = await reader?.read()
        if (r?.done !== false) return
      }
    }
    const outcome = await drain().then(
      () => 'ended',
      (error: unknown) => (error instanceof TypeError ? 'cut' : 'other'),
    )
    expect(['ended', 'cut']).toContain(outcome)
    await expect(fetch(`${toy.url}/api/v1/check`)).rejects.toThrow()
  })
})
