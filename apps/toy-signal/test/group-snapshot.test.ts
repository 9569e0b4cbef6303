import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
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

  it('a groups file holds a change as soon as it is answered, and a toy started on it lists the group', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toy-groups-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const groupsFile = join(dir, 'nested', 'groups.json')
    const first = await createToySignal({ accounts: [A, B], groupsFile })
    // Written at start, before any change: the folder is made and the file is a whole snapshot.
    expect(JSON.parse(readFileSync(groupsFile, 'utf8'))).toEqual([])
    const made = await rpc(first.url, 'updateGroup', { account: A, name: 'Kept', members: [B] })
    // No close: what the file holds once the answer is in is all a killed toy leaves behind.
    const held = JSON.parse(readFileSync(groupsFile, 'utf8')) as { id: string; name: string; members: string[] }[]
    expect(held.map((g) => [g.id, g.name, [...g.members].sort()])).toEqual([[made.groupId, 'Kept', [A, B].sort()]])
    await rpc(first.url, 'updateGroup', { account: A, groupId: made.groupId, name: 'Renamed' })
    expect((JSON.parse(readFileSync(groupsFile, 'utf8')) as { name: string }[]).map((g) => g.name)).toEqual(['Renamed'])
    expect(readdirSync(join(dir, 'nested'))).toEqual(['groups.json'])
    const second = await createToySignal({ accounts: [A, B], groupsFile })
    try {
      const listed = (await rpc(second.url, 'listGroups', { account: B })) as { id: string; name: string }[]
      expect(listed.map((g) => [g.id, g.name])).toEqual([[made.groupId, 'Renamed']])
    } finally {
      await Promise.all([first.close(), second.close()])
    }
  })

  it('refuses a groups file that is not JSON, naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toy-groups-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const groupsFile = join(dir, 'groups.json')
    writeFileSync(groupsFile, '[{"id":')
    await expect(createToySignal({ accounts: [A], groupsFile })).rejects.toMatchObject({
      code: 'TOY_CONFIG_INVALID',
      message: expect.stringContaining(groupsFile),
    })
  })
})
