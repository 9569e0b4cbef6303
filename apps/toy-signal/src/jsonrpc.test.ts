import { describe, expect, it } from 'vitest'
import { paramsAsObject, parseRpcBody } from './jsonrpc.ts'

describe('parseRpcBody', () => {
  it('reads only the first JSON value, as Jackson readTree does', () => {
    const parsed = parseRpcBody('{"jsonrpc":"2.0","method":"version","id":1} trailing')
    expect(parsed).toEqual({
      kind: 'single',
      item: { kind: 'call', call: { method: 'version', id: 1, params: undefined } },
    })
  })

  it('reports truncated JSON as -32700 at the end-of-input column', () => {
    const parsed = parseRpcBody('{"a":\n  1,')
    expect(parsed.kind).toBe('rejected')
    if (parsed.kind !== 'rejected') return
    expect(parsed.response).toMatchObject({ error: { code: -32700 }, id: null })
    expect(JSON.stringify(parsed.response)).toContain('line: 2, column: 5]')
  })

  it('tells a notification (no id member) from an explicit null id', () => {
    const notification = parseRpcBody('{"jsonrpc":"2.0","method":"version"}')
    const nullId = parseRpcBody('{"jsonrpc":"2.0","method":"version","id":null}')
    expect(notification).toMatchObject({ item: { call: { id: undefined } } })
    expect(nullId).toMatchObject({ item: { call: { id: null } } })
  })

  it('ignores a lone response object but rejects one inside a batch', () => {
    expect(parseRpcBody('{"jsonrpc":"2.0","result":1,"id":1}')).toEqual({ kind: 'single', item: { kind: 'ignored' } })
    const batch = parseRpcBody('[{"jsonrpc":"2.0","result":1,"id":1}]')
    expect(batch).toMatchObject({
      kind: 'batch',
      items: [{ kind: 'invalid', response: { error: { code: -32600 }, id: 1 } }],
    })
  })

  it('fails on the first offending member in document order', () => {
    const parsed = parseRpcBody('{"zzz":1,"jsonrpc":"1.0","method":"version","id":3}')
    expect(parsed).toMatchObject({ item: { kind: 'invalid', response: { id: 3 } } })
    expect(JSON.stringify(parsed)).toContain('Unrecognized field \\"zzz\\"')
  })

  it('coerces scalar method names to text', () => {
    expect(parseRpcBody('{"jsonrpc":"2.0","method":5,"id":1}')).toMatchObject({ item: { call: { method: '5' } } })
  })
})

describe('paramsAsObject', () => {
  it('treats absent and null as empty, copies objects, rejects arrays with the Jackson text', () => {
    expect(paramsAsObject(undefined)).toEqual({ ok: true, value: {} })
    expect(paramsAsObject(null)).toEqual({ ok: true, value: {} })
    const original = { a: 1 }
    const mapped = paramsAsObject(original)
    expect(mapped).toEqual({ ok: true, value: { a: 1 } })
    if (mapped.ok) expect(mapped.value).not.toBe(original)
    expect(paramsAsObject([1])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Cannot deserialize value of type `java\.util\.LinkedHashMap/),
    })
  })
})
