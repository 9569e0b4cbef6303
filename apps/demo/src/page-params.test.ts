import { describe, expect, test } from 'vitest'
import { pageLinks, readPageParams } from './page-params.ts'

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

describe('links of a document page', () => {
  const params = { sidecarUrl: 'ws://127.0.0.1:7601', docId: DOC, name: 'Alice', title: 'Trip plan' }

  test('"Your documents" and the chat console keep the sidecar (and the name)', () => {
    const links = pageLinks(params)
    const home = new URL(links.home, 'http://page')
    expect(home.pathname).toBe('/home.html')
    expect(Object.fromEntries(home.searchParams)).toEqual({ name: 'Alice', sidecar: 'ws://127.0.0.1:7601' })
    const console = new URL(links.console, 'http://page')
    expect(console.pathname).toBe('/console.html')
    expect(console.searchParams.get('sidecar')).toBe('ws://127.0.0.1:7601')
  })

  test('the other view opens the same document with the same title, read back by readPageParams', () => {
    const links = pageLinks(params)
    expect(new URL(links.rich, 'http://page').pathname).toBe('/rich.html')
    for (const link of [links.text, links.rich])
      expect(readPageParams(new URL(link, 'http://page').search)).toEqual({ ok: true, params })
  })

  test('a page without a name does not invent one', () => {
    const home = new URL(pageLinks({ ...params, name: 'me', title: undefined }).home, 'http://page')
    expect(home.searchParams.has('name')).toBe(false)
  })
})
