import { afterEach, describe, expect, test, vi } from 'vitest'
import type { NetworkEvents } from '@e2e-col/transport'
import { ConnectGate, defaultNetwork, defaultOnline } from './connect-gate.ts'

/** A real network (a page's window, as far as the gate uses it). */
function network(): NetworkEvents & EventTarget {
  return new EventTarget() as NetworkEvents & EventTarget
}

const fire = (target: EventTarget, type: 'online' | 'offline'): boolean => target.dispatchEvent(new Event(type))

/** What the gate tells the transport, in order. */
function follow(gate: ConnectGate): string[] {
  const heard: string[] = []
  gate.addEventListener('online', () => heard.push('online'))
  gate.addEventListener('offline', () => heard.push('offline'))
  return heard
}

afterEach(() => vi.unstubAllGlobals())

describe('ConnectGate', () => {
  test('reads online only while the provider wants a connection and the real network is up', () => {
    let up = true
    const gate = new ConnectGate(true, null, () => up)
    expect(gate.isOnline()).toBe(true)
    up = false
    expect(gate.isOnline()).toBe(false)
    up = true
    gate.wanted = false
    expect(gate.isOnline()).toBe(false)
  })

  test("passes the real network's online on only while wanted; its offline always", () => {
    const real = network()
    const gate = new ConnectGate(false, real, () => true)
    const heard = follow(gate)
    fire(real, 'online')
    fire(real, 'offline')
    gate.wanted = true
    fire(real, 'online')
    expect(heard).toEqual(['offline', 'online'])
  })

  test('set() tells the transport at once, only on a change, and says online only when the network is up', () => {
    let up = true
    const gate = new ConnectGate(false, null, () => up)
    const heard = follow(gate)
    gate.set(false)
    gate.set(true)
    gate.set(true)
    gate.set(false)
    up = false
    gate.set(true)
    expect(heard).toEqual(['online', 'offline'])
    expect(gate.wanted).toBe(true)
  })

  test('a removed listener hears nothing more; after dispose the real network reaches nobody', () => {
    const real = network()
    const gate = new ConnectGate(true, real, () => true)
    const heard = follow(gate)
    const listener = (): void => {
      heard.push('removed listener')
    }
    gate.addEventListener('offline', listener)
    gate.removeEventListener('offline', listener)
    fire(real, 'offline')
    expect(heard).toEqual(['offline'])
    gate.dispose()
    fire(real, 'offline')
    fire(real, 'online')
    expect(heard).toEqual(['offline'])
  })

  test('works without a real network', () => {
    const gate = new ConnectGate(true, null, () => true)
    expect(() => gate.dispose()).not.toThrow()
  })
})

describe('the default network', () => {
  test('none in Node: no window, and online without a navigator', () => {
    vi.stubGlobal('window', undefined)
    vi.stubGlobal('navigator', undefined)
    expect(defaultNetwork()).toBeNull()
    expect(defaultOnline()).toBe(true)
  })

  test("a page's window and navigator.onLine", () => {
    const page = new EventTarget()
    vi.stubGlobal('window', page)
    vi.stubGlobal('navigator', { onLine: false })
    expect(defaultNetwork()).toBe(page)
    expect(defaultOnline()).toBe(false)
    vi.stubGlobal('navigator', { onLine: true })
    expect(defaultOnline()).toBe(true)
    vi.stubGlobal('navigator', {})
    expect(defaultOnline()).toBe(true)
  })

  test('a window without addEventListener is no network', () => {
    vi.stubGlobal('window', {})
    expect(defaultNetwork()).toBeNull()
  })
})
