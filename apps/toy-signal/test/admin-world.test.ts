// The /toy/v1/world/ admin routes: messages from any source and device, invited and requesting members.
import { afterEach, describe, expect, it } from 'vitest'
import { MAX_WORLD_LIST } from '../src/admin-world.ts'
import { createToySignal, TOY_VERSION, type ToySignal } from '../src/index.ts'

const A = '+15550000001'
const B = '+15550000002'
const C = '+15550000003'
let toy: ToySignal | undefined

afterEach(async () => {
  await toy?.close()
  toy = undefined
})

async function admin(t: ToySignal, name: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${t.url}/toy/v1/world/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  return {
    status: res.status,
    json: res.headers.get('content-type') === 'application/json' ? JSON.parse(text) : undefined,
  }
}

async function firstEvent(t: ToySignal, account: string): Promise<any> {
  const res = await fetch(`${t.url}/api/v1/events?account=${encodeURIComponent(account)}`)
  const reader = res.body?.getReader()
  if (reader === undefined) throw new Error('no body')
  let text = ''
  for (;;) {
    const frame = text.split('\n\n').find((f) => f.includes('data:'))
    if (frame !== undefined && text.includes('\n\n')) {
      await reader.cancel()
      return JSON.parse(frame.slice(frame.indexOf('data:') + 5))
    }
    const { value, done } = await reader.read()
    if (done) throw new Error('stream ended before an event')
    text += new TextDecoder().decode(value)
  }
}

async function listGroups(t: ToySignal, account: string, groupId: string): Promise<any> {
  const res = await fetch(`${t.url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'listGroups', params: { account, groupId } }),
  })
  return ((await res.json()) as { result: any[] }).result[0]
}

describe('/toy/v1/world/inject-message', () => {
  it('delivers a data message from the given source and device', async () => {
    toy = await createToySignal({ accounts: [A, B], faults: true, groups: [{ name: 'g', members: [A, B] }] })
    const groupId = toy.groups[0]?.id as string
    const answer = await admin(toy, 'inject-message', {
      account: A,
      groupId,
      source: C,
      sourceDevice: 3,
      message: 'hello',
    })
    expect(answer.status).toBe(200)
    const event = await firstEvent(toy, A)
    expect(event.envelope).toMatchObject({
      sourceNumber: C,
      sourceDevice: 3,
      timestamp: answer.json.timestamp,
      dataMessage: { message: 'hello', groupInfo: { groupId } },
    })
  })

  it('delivers a sync copy of our own number typed on another device', async () => {
    toy = await createToySignal({ accounts: [A, B], faults: true, groups: [{ name: 'g', members: [A, B] }] })
    const groupId = toy.groups[0]?.id as string
    expect(
      (
        await admin(toy, 'inject-message', {
          account: A,
          groupId,
          source: A,
          sourceDevice: 2,
          message: 'from the laptop',
          sync: true,
        })
      ).status,
    ).toBe(200)
    const event = await firstEvent(toy, A)
    expect(event.envelope).toMatchObject({
      sourceNumber: A,
      sourceDevice: 2,
      syncMessage: { sentMessage: { message: 'from the laptop', groupInfo: { groupId } } },
    })
  })

  it('refuses a sync copy from another number, an unknown group and a bad body', async () => {
    toy = await createToySignal({ accounts: [A, B], faults: true, groups: [{ name: 'g', members: [A, B] }] })
    const groupId = toy.groups[0]?.id as string
    expect(
      (await admin(toy, 'inject-message', { account: A, groupId, source: B, message: 'x', sync: true })).status,
    ).toBe(400)
    expect((await admin(toy, 'inject-message', { account: A, groupId: 'nope', source: B, message: 'x' })).status).toBe(
      404,
    )
    expect((await admin(toy, 'inject-message', { account: A, groupId, source: 'B', message: 'x' })).status).toBe(400)
  })
})

describe('/toy/v1/world/group-members', () => {
  it('sets the invited and requesting members listGroups shows', async () => {
    toy = await createToySignal({ accounts: [A, B], faults: true, groups: [{ name: 'g', members: [A, B] }] })
    const groupId = toy.groups[0]?.id as string
    expect((await listGroups(toy, A, groupId)).requestingMembers).toEqual([])
    expect((await admin(toy, 'group-members', { groupId, requesting: [C] })).status).toBe(204)
    const group = await listGroups(toy, A, groupId)
    expect(group.requestingMembers.map((m: any) => m.number)).toEqual([C])
    expect(group.pendingMembers).toEqual([])
    expect((await admin(toy, 'group-members', { groupId, pending: [C] })).status).toBe(204)
    const after = await listGroups(toy, A, groupId)
    expect([after.pendingMembers.map((m: any) => m.number), after.requestingMembers]).toEqual([[C], []])
  })

  it('bounds each list', async () => {
    toy = await createToySignal({ accounts: [A], faults: true, groups: [{ name: 'g', members: [A] }] })
    const many = Array.from({ length: MAX_WORLD_LIST + 1 }, (_, i) => `+1555100${String(i).padStart(4, '0')}`)
    expect((await admin(toy, 'group-members', { groupId: toy.groups[0]?.id, pending: many })).status).toBe(400)
  })

  it('does not exist without faults', async () => {
    toy = await createToySignal({ accounts: [A], groups: [{ name: 'g', members: [A] }] })
    expect((await admin(toy, 'group-members', { groupId: toy.groups[0]?.id })).status).toBe(404)
  })
})

describe('/toy/v1/world/fail-next-calls', () => {
  it('answers the next n calls of one method with that JSON-RPC error, then behaves again', async () => {
    toy = await createToySignal({ accounts: [A, B], faults: true, groups: [{ name: 'g', members: [A, B] }] })
    const groupId = toy.groups[0]?.id as string
    expect(
      (await admin(toy, 'fail-next-calls', { method: 'listGroups', n: 2, code: -1, message: 'Failed to list groups' }))
        .status,
    ).toBe(204)
    const call = async (method: string) => {
      const res = await fetch(`${toy?.url}/api/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { account: A, groupId } }),
      })
      return (await res.json()) as { result?: unknown; error?: { code: number; message: string } }
    }
    expect((await call('listGroups')).error).toMatchObject({ code: -1, message: 'Failed to list groups' })
    // Another method is not counted against listGroups' failures.
    expect((await call('version')).result).toEqual({ version: TOY_VERSION })
    expect((await call('listGroups')).error?.code).toBe(-1)
    expect((await call('listGroups')).result).toHaveLength(1)
  })
})
