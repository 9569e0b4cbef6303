import { afterEach, describe, expect, test, vi } from 'vitest'
import { Emitter } from './emitter.ts'

interface Events extends Record<string, unknown> {
  a: number
  b: string
}

afterEach(() => {
  vi.restoreAllMocks()
  vi.unstubAllGlobals()
})

describe('Emitter', () => {
  test('calls the listeners of one event only, in subscription order, until each unsubscribes', () => {
    const e = new Emitter<Events>()
    const seen: string[] = []
    const offFirst = e.on('a', (n) => seen.push(`first ${n}`))
    e.on('a', (n) => seen.push(`second ${n}`))
    e.on('b', (s) => seen.push(`b ${s}`))
    e.emit('a', 1)
    offFirst()
    e.emit('a', 2)
    expect(seen).toEqual(['first 1', 'second 1', 'second 2'])
  })

  test('an event nobody listens to is a no-op', () => {
    expect(() => new Emitter<Events>().emit('b', 'x')).not.toThrow()
  })

  test('a listener that unsubscribes itself while called does not make the next one skipped', () => {
    const e = new Emitter<Events>()
    const seen: string[] = []
    const off = e.on('a', () => {
      seen.push('once')
      off()
    })
    e.on('a', () => seen.push('always'))
    e.emit('a', 1)
    e.emit('a', 2)
    expect(seen).toEqual(['once', 'always', 'always'])
  })

  test('a throwing listener is reported (console.error without reportError) and the others still run', () => {
    vi.stubGlobal('reportError', undefined)
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const e = new Emitter<Events>()
    const seen: number[] = []
    const boom = new Error('listener bug')
    e.on('a', () => {
      throw boom
    })
    e.on('a', (n) => seen.push(n))
    e.emit('a', 7)
    expect(seen).toEqual([7])
    expect(logged).toHaveBeenCalledWith(boom)
  })

  test("a throwing listener goes to the page's reportError where there is one", () => {
    const reported: unknown[] = []
    vi.stubGlobal('reportError', (error: unknown) => reported.push(error))
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const e = new Emitter<Events>()
    const boom = new Error('listener bug')
    e.on('b', () => {
      throw boom
    })
    e.emit('b', 'x')
    expect(reported).toEqual([boom])
    expect(logged).not.toHaveBeenCalled()
  })
})
