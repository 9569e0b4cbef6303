/**
 * Batches: per-element validation, completion order (so clients match by id), all-notification
 * batches, the empty batch (daemon-contract.md §6.2).
 */
import { expect } from 'vitest'
import { rpcCall } from '../http-probe.ts'
import type { DefineCase } from '../define-case.ts'
import { expectRpcError } from './jsonrpc-parsing.ts'

type Response = { id: unknown; result?: unknown; error?: { code: number; message: string } }

export function registerBatchingCases(defineCase: DefineCase): void {
  defineCase(
    'any',
    'a mixed batch answers every non-notification element once, matched by id, in any order',
    async (t) => {
      const answer = await rpcCall(t.url, [
        { jsonrpc: '2.0', method: 'version', id: 1 },
        { jsonrpc: '2.0', method: 'nope', id: 2 },
        { jsonrpc: '2.0', id: 3 },
        { jsonrpc: '2.0', method: 'version' },
        { jsonrpc: '2.0', method: 'version', id: 'four' },
        5,
      ])
      expect(answer.status).toBe(200)
      const list = answer.json as Response[]
      expect(Array.isArray(list)).toBe(true)
      // Elements run in parallel and are appended as they complete: only the set of ids is the contract.
      expect(list).toHaveLength(5)
      expect(new Set(list.map((r) => JSON.stringify(r.id)))).toEqual(new Set(['"four"', '1', '2', '3', 'null']))
      const byId = new Map(list.map((r) => [JSON.stringify(r.id), r]))
      expect(byId.get('1')?.result).toEqual({ version: t.version })
      expect(byId.get('"four"')?.result).toEqual({ version: t.version })
      expectRpcError(byId.get('2'), -32601, 'Method not implemented', 2)
      expectRpcError(byId.get('3'), -32600, 'method field must be set', 3)
      expectRpcError(
        byId.get('null'),
        -32600,
        /^Cannot construct instance of `org\.asamk\.signal\.jsonrpc\.JsonRpcRequest`/,
        null,
      )
    },
  )

  defineCase('any', 'a batch of notifications only is 201 with an empty body', async (t) => {
    const answer = await rpcCall(t.url, [
      { jsonrpc: '2.0', method: 'version' },
      { jsonrpc: '2.0', method: 'nope' },
    ])
    expect(answer.status).toBe(201)
    expect(answer.text).toBe('')
  })

  defineCase('any', 'an empty batch is one -32600 "invalid request" object, not an array', async (t) => {
    expectRpcError((await rpcCall(t.url, [])).json, -32600, 'invalid request', null)
  })

  defineCase('any', 'a batch of one is still an array', async (t) => {
    const answer = await rpcCall(t.url, [{ jsonrpc: '2.0', method: 'version', id: 9 }])
    expect(answer.json).toEqual([{ jsonrpc: '2.0', result: { version: t.version }, id: 9 }])
  })

  defineCase('any', 'inside a batch a response object is not ignored but an unrecognized field', async (t) => {
    const answer = await rpcCall(t.url, [{ jsonrpc: '2.0', result: 1, id: 1 }])
    const [only] = answer.json as Response[]
    expectRpcError(only, -32600, /^Unrecognized field "result"/, 1)
  })

  defineCase('any', 'non-object batch elements are -32600 with id null', async (t) => {
    const answer = await rpcCall(t.url, ['x', [], 7])
    const list = answer.json as Response[]
    expect(list).toHaveLength(3)
    for (const r of list) expectRpcError(r, -32600, /^Cannot (construct instance|deserialize value) of/, null)
  })
}
