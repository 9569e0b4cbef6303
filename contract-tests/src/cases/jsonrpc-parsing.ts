/**
 * JSON-RPC parsing: the exact -32700/-32600/-32601 answers, id echoing, notifications (daemon-contract.md §6.2).
 */
import { expect } from 'vitest'
import { rpcAnswer, rpcCall } from '../http-probe.ts'
import type { DefineCase } from '../define-case.ts'

/** Asserts one error response object, exactly: `{jsonrpc, error:{code, message, data:null}, id}`. */
export function expectRpcError(json: unknown, code: number, message: string | RegExp, id: unknown): void {
  expect(new Set(Object.keys(json as object))).toEqual(new Set(['error', 'id', 'jsonrpc']))
  const response = json as { jsonrpc: string; error: { code: number; message: string; data: unknown }; id: unknown }
  expect(response.jsonrpc).toBe('2.0')
  expect(response.id).toEqual(id)
  expect(response.error.code).toBe(code)
  expect(new Set(Object.keys(response.error))).toEqual(new Set(['code', 'data', 'message']))
  expect(response.error.data).toBeNull()
  if (typeof message === 'string') expect(response.error.message).toBe(message)
  else expect(response.error.message).toMatch(message)
}

/** Sends one well-formed call (id 1 unless given; see `rpcAnswer`) and asserts its exact error answer. */
export async function expectCallError(
  url: string,
  method: unknown,
  params: unknown,
  code: number,
  message: string | RegExp,
  id: unknown = 1,
): Promise<void> {
  expectRpcError((await rpcAnswer(url, method, params, id)).json, code, message, id)
}

export function registerJsonRpcParsingCases(defineCase: DefineCase): void {
  defineCase(
    'any',
    'version answers {jsonrpc, result:{version}, id} and the toy says it is a toy',
    async (t) => {
      const answer = await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', id: 1 })
      expect(new Set(Object.keys(answer.json as object))).toEqual(new Set(['id', 'jsonrpc', 'result']))
      const json = answer.json as { result: { version: string }; id: number }
      expect(json.id).toBe(1)
      expect(json.result.version).toMatch(/^\d+\.\d+\.\d+/)
      expect(json.result.version).toBe(t.version)
      if (t.adminUrl !== undefined) expect(json.result.version).toContain('toy')
    },
    {
      client: async (t, c) => {
        expect(await c.backend().version()).toBe(t.version)
        expect(await c.provisioning().version()).toBe(t.version)
      },
    },
  )

  defineCase('any', 'ids are echoed verbatim: strings, fractions, booleans and an explicit null', async (t) => {
    for (const id of ['a-1', 1.5, true, null, 0]) {
      const answer = await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', id })
      expect((answer.json as { id: unknown }).id).toEqual(id)
      expect((answer.json as { result: unknown }).result).toEqual({ version: expect.any(String) })
    }
  })

  defineCase(
    'any',
    'a notification (no id) runs and gets 201 with an empty body, even for an unknown method',
    async (t) => {
      for (const method of ['version', 'noSuchMethod']) {
        const answer = await rpcCall(t.url, { jsonrpc: '2.0', method })
        expect(answer.status).toBe(201)
        expect(answer.text).toBe('')
      }
    },
  )

  defineCase('any', 'malformed JSON is -32700 with id null and a Jackson location', async (t) => {
    const answer = await rpcCall(t.url, '{"jsonrpc":"2.0","method":"version",')
    expectRpcError(answer.json, -32700, /line: 1, column: 37\]$/, null)
  })

  defineCase('any', 'content after the first JSON value is ignored, as Jackson readTree does', async (t) => {
    const answer = await rpcCall(t.url, '{"jsonrpc":"2.0","method":"version","id":7} {"x":1}')
    expect((answer.json as { id: number; result: unknown }).id).toBe(7)
    expect((answer.json as { result: unknown }).result).toEqual({ version: expect.any(String) })
  })

  defineCase('any', 'an empty body and non-container top-level values are -32600 "unexpected type: X"', async (t) => {
    for (const [body, type] of [
      ['', 'MISSING'],
      ['   ', 'MISSING'],
      ['42', 'NUMBER'],
      ['"x"', 'STRING'],
      ['null', 'NULL'],
      ['true', 'BOOLEAN'],
    ]) {
      const answer = await rpcCall(t.url, body ?? '')
      expect(answer.status).toBe(200)
      expectRpcError(answer.json, -32600, `unexpected type: ${type}`, null)
    }
  })

  defineCase('any', 'a wrong or missing jsonrpc member is -32600, id kept when scalar', async (t) => {
    expectRpcError(
      (await rpcCall(t.url, { jsonrpc: '1.0', method: 'version', id: 5 })).json,
      -32600,
      'only jsonrpc version 2.0 is supported',
      5,
    )
    expectRpcError(
      (await rpcCall(t.url, { method: 'version', id: 'x' })).json,
      -32600,
      'only jsonrpc version 2.0 is supported',
      'x',
    )
    // Validation errors are answered even without an id (with id null), unlike command errors.
    expectRpcError(
      (await rpcCall(t.url, { jsonrpc: '1.0', method: 'version' })).json,
      -32600,
      'only jsonrpc version 2.0 is supported',
      null,
    )
  })

  defineCase('any', 'a missing or null method is -32600 "method field must be set"', async (t) => {
    expectRpcError((await rpcCall(t.url, { jsonrpc: '2.0', id: 5 })).json, -32600, 'method field must be set', 5)
    expectRpcError(
      (await rpcCall(t.url, { jsonrpc: '2.0', method: null, id: 6 })).json,
      -32600,
      'method field must be set',
      6,
    )
  })

  defineCase('any', 'an unknown top-level member is -32600 "Unrecognized field", id kept if given', async (t) => {
    const withId = await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', id: 5, foo: 1 })
    expectRpcError(
      withId.json,
      -32600,
      /^Unrecognized field "foo" \(class org\.asamk\.signal\.jsonrpc\.JsonRpcRequest\), not marked as ignorable/,
      5,
    )
    const withoutId = await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', foo: 1 })
    expectRpcError(withoutId.json, -32600, /^Unrecognized field "foo"/, null)
  })

  defineCase('any', 'an object or array id is -32600 with id null', async (t) => {
    expectRpcError(
      (await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', id: { a: 1 } })).json,
      -32600,
      /^Problem deserializing property 'id'/,
      null,
    )
    expectRpcError(
      (await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', id: [1] })).json,
      -32600,
      /^Problem deserializing property 'id'/,
      null,
    )
  })

  defineCase(
    'any',
    'array params are a -32600 mapping error (dropped for a notification); null params are absent',
    async (t) => {
      const array = await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', id: 5, params: [1] })
      expectRpcError(
        array.json,
        -32600,
        /^Cannot deserialize value of type `java\.util\.LinkedHashMap<java\.lang\.String,java\.lang\.Object>` from Array value/,
        5,
      )
      expect((await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', params: [1] })).status).toBe(201)
      const scalar = await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', id: 6, params: 5 })
      expectRpcError(scalar.json, -32600, /^Problem deserializing property 'params'/, 6)
      const nullParams = await rpcCall(t.url, { jsonrpc: '2.0', method: 'version', id: 7, params: null })
      expect((nullParams.json as { result: unknown }).result).toEqual({ version: expect.any(String) })
    },
  )

  defineCase('any', 'a lone response object (result or error member) is ignored with 201', async (t) => {
    expect((await rpcCall(t.url, { jsonrpc: '2.0', result: 1, id: 6 })).status).toBe(201)
    expect((await rpcCall(t.url, { jsonrpc: '2.0', error: { code: 1 }, id: 6 })).status).toBe(201)
  })

  defineCase(
    'any',
    'an unknown method, an empty name, and subscribeReceive over HTTP are -32601 "Method not implemented"',
    async (t) => {
      for (const method of ['noSuchMethod', '', 'subscribeReceive', 'unsubscribeReceive']) {
        expectRpcError(
          (await rpcCall(t.url, { jsonrpc: '2.0', method, id: 2 })).json,
          -32601,
          'Method not implemented',
          2,
        )
      }
      // Jackson coerces a number to the method name "5", which does not exist.
      expectRpcError(
        (await rpcCall(t.url, { jsonrpc: '2.0', method: 5, id: 3 })).json,
        -32601,
        'Method not implemented',
        3,
      )
    },
  )
}
