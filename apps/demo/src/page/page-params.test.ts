import { describe, expect, test } from 'vitest'
import { readPageParams } from './page-params.ts'

const DOC = '6f1d2c3e-5a4b-4c7d-8e9f-0a1b2c3d4e5f'

describe('page URL parameters', () => {
  test('reads sidecar, document and name, written plainly as npm start prints them', () => {
    expect(readPageParams(`?name=Alice&sidecar=ws://127.0.0.1:7601&doc=${DOC}`)).toEqual({
      ok: true,
      params: { name: 'Alice', sidecarUrl: 'ws://127.0.0.1:7601', docId: DOC },
    })
  })

  test('accepts a percent-encoded sidecar URL and an upper-case document id', () => {
    const result = readPageParams(`?sidecar=ws%3A%2F%2F127.0.0.1%3A7601&doc=${DOC.toUpperCase()}`)
    expect(result).toMatchObject({ ok: true, params: { sidecarUrl: 'ws://127.0.0.1:7601', docId: DOC, name: 'me' } })
  })

  test('explains what is missing instead of failing silently', () => {
    expect(readPageParams(`?doc=${DOC}`)).toMatchObject({ ok: false, problem: expect.stringContaining('?sidecar=') })
    expect(readPageParams('?sidecar=ws://127.0.0.1:7601&doc=nope')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('?doc='),
    })
  })

  test('reads the title the home page passes, bounded', () => {
    expect(readPageParams(`?sidecar=ws://h:1&doc=${DOC}&title=Trip%20plan`)).toMatchObject({
      ok: true,
      params: { title: 'Trip plan' },
    })
    const long = readPageParams(`?sidecar=ws://h:1&doc=${DOC}&title=${'t'.repeat(200)}`)
    expect(long.ok && long.params.title?.length).toBe(64)
  })

  test('bounds the displayed name', () => {
    const result = readPageParams(`?sidecar=ws://h:1&doc=${DOC}&name=${'x'.repeat(500)}`)
    expect(result.ok && result.params.name.length).toBe(40)
  })
})
