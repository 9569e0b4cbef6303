import { describe, expect, it } from 'vitest'
import { createToySignal } from '../src/index.ts'

const A = '+15550000091'
const B = '+15550000092'

async function rpc(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return ((await res.json()) as { result: unknown }).result
}

describe('group snapshots', () => {
  it("a toy started with an earlier toy's groups lists them as they were, invitees and timers included", async () => {
    const first = await createToySignal({ accounts: [A, B], pendingInvites: true })
    const made = await rpc(first.url, 'updateGroup', {
      account: A,
      name: 'Kept',
      members: [B],
      description: 'why',
      expiration: 60,
    })
    const before = await rpc(first.url, 'listGroups', { account: B })
    const snapshot = JSON.parse(JSON.stringify(first.snapshotGroups())) as unknown
    await first.close()
    const second = await createToySignal({ accounts: [A, B], pendingInvites: true, restoreGroups: snapshot })
    try {
      const after = (await rpc(second.url, 'listGroups', { account: B })) as {
        id: string
        pendingMembers: { number: string }[]
        messageExpirationTime: number
        description: string
      }[]
      expect(
        after.map((g) => [g.id, g.description, g.messageExpirationTime, g.pendingMembers.map((m) => m.number)]),
      ).toEqual([[made.groupId, 'why', 60, [B]]])
      expect(after.length).toBe(before.length)
    } finally {
      await second.close()
    }
  })

  it('refuses a snapshot that is not one, naming the problem', async () => {
    await expect(createToySignal({ accounts: [A], restoreGroups: [{ id: 'nope' }] })).rejects.toMatchObject({
      code: 'TOY_CONFIG_INVALID',
    })
  })
})
