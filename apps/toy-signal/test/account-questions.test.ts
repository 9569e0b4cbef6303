/**
 * The account-level answers the differential compares with a real 0.13.19 (contract-tests §6.12),
 * checked on the toy alone where the real daemon cannot say (online answers) or where one line
 * of the toy decides (the formatter's fallback, the routing order of positional params).
 */
import { describe, expect, it } from 'vitest'
import { formatNumber } from '../src/methods/targets.ts'
import { rpc, startToy } from './toy-rpc.ts'

const A = '+33600000001'
const B = '+33600000002'

async function raw(url: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return res.json()
}

describe('account-level answers', () => {
  it('formats numbers as PhoneNumberFormatter: refuses only @ or nothing usable, completes a national number', () => {
    expect(formatNumber('+33 6-00 00 00 02', A)).toBe(B)
    expect(formatNumber('600000002', A)).toBe(B)
    expect(() => formatNumber('a@b', A)).toThrow("Invalid phone number 'a@b': Possible attempt to use email address.")
    expect(() => formatNumber('nope', A)).toThrow("Invalid phone number 'nope': No valid characters found.")
  })

  it('routes the account before mapping params: positional params are -32602 with several accounts, -32600 with one', async () => {
    const two = await startToy({ accounts: [A, B] })
    const many = await raw(two.url, { jsonrpc: '2.0', id: 1, method: 'listGroups', params: [A] })
    expect(many.error).toEqual({ code: -32602, message: 'Method requires valid account parameter', data: null })
    const one = await startToy({ accounts: [A] })
    const sole = await raw(one.url, { jsonrpc: '2.0', id: 1, method: 'listGroups', params: [A] })
    expect(sole.error.code).toBe(-32600)
    expect(sole.error.message).toMatch(/^Cannot deserialize value of type `java\.util\.LinkedHashMap/)
  })

  it('listDevices lists one device online and is -3 offline', async () => {
    const toy = await startToy({ accounts: [A, B], faults: true })
    const [device] = (await rpc(toy, 'listDevices', { account: A })).result
    expect(device).toEqual({
      id: 1,
      name: null,
      createdTimestamp: expect.any(Number),
      lastSeenTimestamp: expect.any(Number),
    })
    toy.faults.setNetworkLoss(true)
    expect((await rpc(toy, 'listDevices', { account: A })).error).toEqual({
      code: -3,
      message: 'Failed to get linked devices: Closed unexpectedly',
      data: null,
    })
  })

  it('getUserStatus asks Signal only about numbers the formatter takes', async () => {
    const toy = await startToy({ accounts: [A, B], faults: true })
    expect((await rpc(toy, 'getUserStatus', { account: A, recipient: ['nope', B] })).result).toEqual([
      { recipient: 'nope', uuid: null, isRegistered: false },
      { recipient: B, number: B, uuid: expect.any(String), isRegistered: true },
    ])
    toy.faults.setNetworkLoss(true)
    expect((await rpc(toy, 'getUserStatus', { account: A, recipient: 'nope' })).result).toEqual([
      { recipient: 'nope', uuid: null, isRegistered: false },
    ])
    expect((await rpc(toy, 'getUserStatus', { account: A, recipient: B })).error.code).toBe(-3)
  })
})
