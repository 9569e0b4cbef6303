/**
 * Group administration the document library relies on: creation with a description and a
 * disappearing-messages timer, group-update events on members' streams, members removed (and no
 * longer receiving), and invitations (pending members) accepted by an update or declined by quitGroup
 * (daemon-contract.md §6.4).
 */
import { expect } from 'vitest'
import { expectRpcFailure, openClientEvents } from '../client-probe.ts'
import { rpcAnswer } from '../http-probe.ts'
import { openEvents, settled } from '../sse-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { fixtures, withToy } from '../target.ts'
import { withOpen } from '../with-open.ts'
import { expectCallError } from './jsonrpc-parsing.ts'
import { sendAs } from './send.ts'

interface Address {
  number: string | null
  uuid: string
}
interface Group {
  id: string
  name: string
  description: string
  isMember: boolean
  messageExpirationTime: number
  members: Address[]
  pendingMembers: Address[]
  requestingMembers: Address[]
}

async function result(url: string, method: string, params: Record<string, unknown>): Promise<unknown> {
  const answer = (await rpcAnswer(url, method, params, method)).json as {
    result?: unknown
    error?: { message: string }
  }
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`)
  return answer.result
}
const groupOf = async (url: string, account: string, groupId: string): Promise<Group | undefined> =>
  ((await result(url, 'listGroups', { account, groupId })) as Group[])[0]
const numbers = (list: readonly Address[]): (string | null)[] => list.map((m) => m.number)
/** A member's number as the client's listing gives it (a bare string or `{number, uuid}`). */
const memberNumber = (m: string | { number?: string | null | undefined }): string | null | undefined =>
  typeof m === 'string' ? m : m.number

export function registerGroupAdminCases(defineCase: DefineCase): void {
  defineCase(
    'delivery',
    'updateGroup creates with a description and an expiration timer; listGroups shows both',
    async (t) => {
      const { a, b } = fixtures(t)
      const created = (await result(t.url, 'updateGroup', {
        account: a,
        name: 'contract doc',
        members: [b],
        description: 'contract: what this group is for',
        expiration: 604800,
      })) as { groupId: string }
      const group = await groupOf(t.url, a, created.groupId)
      expect(group?.description).toBe('contract: what this group is for')
      expect(group?.messageExpirationTime).toBe(604800)
      expect(group?.name).toBe('contract doc')
    },
    {
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        const id = await c.backend(a).createGroupWith({
          name: 'contract doc (client)',
          members: [b],
          description: 'contract: what this group is for',
          expirationSeconds: 604800,
        })
        const [group] = await c.backend(a).listGroups(id)
        expect(group).toMatchObject({
          name: 'contract doc (client)',
          description: 'contract: what this group is for',
          messageExpirationTime: 604800,
        })
      },
    },
  )

  defineCase(
    'delivery',
    "a group change reaches the other members' streams as a dataMessage with groupInfo.type UPDATE and no body",
    async (t) => {
      const { a, b } = fixtures(t)
      await withOpen(openEvents(t.url, b), async (probe) => {
        await settled(probe)
        const created = (await result(t.url, 'updateGroup', { account: a, name: 'contract update', members: [b] })) as {
          groupId: string
          timestamp: number
        }
        const renamed = (await result(t.url, 'updateGroup', {
          account: a,
          groupId: created.groupId,
          name: 'contract update 2',
        })) as { timestamp: number }
        const event = await probe.waitFor((e) => e.json.envelope['timestamp'] === renamed.timestamp)
        const dm = event.json.envelope['dataMessage'] as {
          message: unknown
          groupInfo: { groupId: string; groupName: string; type: string; revision: number }
        }
        expect(dm.message).toBeNull()
        expect(dm.groupInfo).toMatchObject({ groupId: created.groupId, groupName: 'contract update 2', type: 'UPDATE' })
        expect(event.json.envelope['sourceNumber']).toBe(a)
      })
    },
    {
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        await withOpen(openClientEvents(c, b), async (stream) => {
          const id = await c.backend(a).createGroup('contract update (client)', [b])
          await c.backend(a).updateGroup(id, { name: 'contract update (client) 2' })
          // A change without a body reaches the client as a group-update, never as a message.
          await stream.waitFor((e) => e.type === 'group-update' && e.groupId === id && e.sourceNumber === a)
          expect(stream.events.some((e) => e.type === 'message' && e.groupId === id)).toBe(false)
        })
      },
    },
  )

  defineCase(
    'delivery',
    "a removed member is told, is listed with isMember:false, and no longer receives the group's messages",
    async (t) => {
      const { a, b } = fixtures(t)
      const created = (await result(t.url, 'updateGroup', { account: a, name: 'contract removal', members: [b] })) as {
        groupId: string
      }
      await withOpen(openEvents(t.url, b), async (probe) => {
        await settled(probe)
        const removed = (await result(t.url, 'updateGroup', {
          account: a,
          groupId: created.groupId,
          removeMembers: [b],
        })) as { timestamp: number }
        await probe.waitFor((e) => e.json.envelope['timestamp'] === removed.timestamp)
        expect((await groupOf(t.url, b, created.groupId))?.isMember).toBe(false)
        const after = await sendAs(t.url, a, { groupId: created.groupId, message: 'contract: after removal' })
        expect(after.results.map((r) => r.recipientAddress.number)).not.toContain(b)
        // A marker sent to a group b still shares shows the stream is live and in order.
        const { groupId } = fixtures(t)
        const marker = await sendAs(t.url, a, { groupId, message: 'contract: marker' })
        await probe.waitFor((e) => e.json.envelope['timestamp'] === marker.timestamp)
        expect(probe.events.some((e) => e.json.envelope['timestamp'] === after.timestamp)).toBe(false)
      })
    },
    {
      client: async (t, c) => {
        const { a, b } = fixtures(t)
        const id = await c.backend(a).createGroup('contract removal (client)', [b])
        await c.backend(a).updateGroup(id, { removeMembers: [b] })
        expect((await c.backend(b).listGroups(id))[0]?.isMember).toBe(false)
        const after = await c.backend(a).sendGroupMessage(id, 'contract: after removal (client)')
        expect(
          (after.results ?? []).map((r) => (r as { recipientAddress?: { number?: string } }).recipientAddress?.number),
        ).not.toContain(b)
      },
    },
  )

  defineCase(
    'toy',
    'a number the creator holds no profile key for is invited (pending); it accepts with updateGroup or declines with quitGroup',
    async (t) => {
      const [a, b, c] = ['+15550000081', '+15550000082', '+15550000083']
      const invites = ['--pending-invites', '--account', a, '--account', b, '--account', c]
      await withToy(t, invites, (toy) =>
        withOpen(openEvents(toy.url, b), async (probe) => {
          await probe.response
          const created = (await result(toy.url, 'updateGroup', {
            account: a,
            name: 'invite',
            members: [b, c],
            description: 'contract',
          })) as { groupId: string; timestamp: number }
          // The invitee hears of the group (an UPDATE) and sees it, but is not a member yet.
          await probe.waitFor((e) => e.json.envelope['timestamp'] === created.timestamp)
          const seenByB = await groupOf(toy.url, b, created.groupId)
          expect(seenByB?.isMember).toBe(false)
          expect(numbers(seenByB?.pendingMembers ?? [])).toEqual(expect.arrayContaining([b, c]))
          // Invitees get updates, never messages.
          const early = await sendAs(toy.url, a, { groupId: created.groupId, message: 'contract: before accepting' })
          expect(early.results).toEqual([])
          const byInvitee = { account: b, groupId: created.groupId, message: 'x' }
          await expectCallError(toy.url, 'send', byInvitee, -1, /^User is not a member in group: /)

          const accepted = await result(toy.url, 'updateGroup', { account: b, groupId: created.groupId })
          expect(accepted).toHaveProperty('timestamp')
          const afterAccept = await groupOf(toy.url, b, created.groupId)
          expect(afterAccept?.isMember).toBe(true)
          expect(numbers(afterAccept?.pendingMembers ?? [])).toEqual([c])
          const late = await sendAs(toy.url, a, { groupId: created.groupId, message: 'contract: after accepting' })
          expect(late.results.map((r) => r.recipientAddress.number)).toEqual([b])

          await result(toy.url, 'quitGroup', { account: c, groupId: created.groupId })
          const afterDecline = await groupOf(toy.url, a, created.groupId)
          expect(numbers(afterDecline?.pendingMembers ?? [])).toEqual([])
          expect((await groupOf(toy.url, c, created.groupId))?.isMember).toBe(false)
          // Now that a and b share a group as members, a adds b anywhere at once.
          const direct = (await result(toy.url, 'updateGroup', { account: a, name: 'direct', members: [b] })) as {
            groupId: string
          }
          expect((await groupOf(toy.url, b, direct.groupId))?.isMember).toBe(true)
        }),
      )
    },
    {
      timeoutMs: 30_000,
      client: async (t, client) => {
        const [a, b, c] = ['+15550000181', '+15550000182', '+15550000183']
        const invites = ['--pending-invites', '--account', a, '--account', b, '--account', c]
        await withToy(t, invites, async (toy) => {
          const [byA, byB, byC] = [client.backend(a, toy.url), client.backend(b, toy.url), client.backend(c, toy.url)]
          await withOpen(openClientEvents(client, b, toy.url), async (stream) => {
            const id = await byA.createGroupWith({
              name: 'invite',
              members: [b, c],
              description: 'contract',
              expirationSeconds: 0,
            })
            // The document library's invitation flow: the invitee hears of it, sees it, is not a member yet.
            await stream.waitFor((e) => e.type === 'group-update' && e.groupId === id)
            const seen = (await byB.listGroups(id))[0]
            expect(seen?.isMember).toBe(false)
            expect(seen?.pendingMembers?.map(memberNumber)).toEqual(expect.arrayContaining([b, c]))
            await expectRpcFailure(byB.sendGroupMessage(id, 'x'), -1, /^User is not a member in group: /)
            // Accepting is an update without a change; declining is leaving.
            await byB.updateGroup(id, {})
            expect((await byB.listGroups(id))[0]?.isMember).toBe(true)
            await byC.leaveGroup(id, [])
            expect((await byC.listGroups(id))[0]?.isMember).toBe(false)
            expect((await byA.listGroups(id))[0]?.pendingMembers).toEqual([])
          })
        })
      },
    },
  )
}
