// Signal's platform limits as the toy enforces them over HTTP: the refusal's shape, and nothing sent.
import { describe, expect, it } from 'vitest'
import { createToySignal } from '../src/index.ts'
import { rpc, startToy } from './toy-rpc.ts'

const A = '+15550000001'
const B = '+15550000002'

const numbers = (n: number): string[] => Array.from({ length: n }, (_, i) => `+1555${String(1_000_000 + i)}`)

describe('platform limits over HTTP', () => {
  it('refuses a message whose content passes 96 KiB (many attachments) with a 413, sending nothing', async () => {
    const toy = await startToy({ accounts: [A, B], groups: [{ name: 'g', members: [A, B] }] })
    const groupId = toy.groups[0]?.id
    const attachments = Array.from({ length: 700 }, () => 'data:;base64,AA==')
    const answer = await rpc(toy, 'send', { account: A, groupId, message: 'x', attachments })
    expect(answer.error).toEqual({
      code: -32603,
      message: 'Failed to send message: [413] Rate limit exceeded: 413 (RateLimitException) (UnexpectedErrorException)',
      data: null,
    })
    expect(toy.sends()).toEqual([])
    await rpc(toy, 'send', { account: A, groupId, message: 'x', attachments: attachments.slice(0, 10) })
    expect(toy.sends().map((s) => s.message)).toEqual(['x'])
  })

  it('creates a group of 1,001 members but not of 1,002, and refuses such a group in its options', async () => {
    const toy = await startToy({ accounts: [A] })
    const full = (await rpc(toy, 'updateGroup', { account: A, name: 'full', members: numbers(1000) })).result.groupId
    const listed = (await rpc(toy, 'listGroups', { account: A, groupId: full })).result
    expect(listed[0].members).toHaveLength(1001)
    const over = await rpc(toy, 'updateGroup', { account: A, name: 'over', members: numbers(1001) })
    expect(over.error.code).toBe(-32603)
    expect(over.error.message).toMatch(/Signal allows 1001/)
    await expect(
      createToySignal({ accounts: [A], groups: [{ name: 'big', members: numbers(1002) }] }),
    ).rejects.toMatchObject({
      code: 'TOY_CONFIG_INVALID',
    })
  })
})
