/**
 * What a binding writes locally around its load and the page-hide moment: no checkpoint before the
 * stored state is loaded, the previous page's rescue left alone until then, and a rescue cleared
 * only once a checkpoint is durable.
 */
import * as Y from 'yjs'
import { describe, expect, test } from 'vitest'
import { createMemoryStorage, type PageLifecycle } from '../src/index.ts'
import { scriptedBindings, settle, slowLoading, textUpdate } from './scripted-sidecar.ts'

const { open } = scriptedBindings()

/** A page lifecycle whose hide the test fires. */
function scriptedPage(): { lifecycle: PageLifecycle; hide: () => void } {
  const listeners: (() => void)[] = []
  return {
    lifecycle: {
      onHide(listener) {
        listeners.push(listener)
        return () => listeners.splice(listeners.indexOf(listener), 1)
      },
    },
    hide: () => {
      for (const l of listeners.slice()) l()
    },
  }
}

const offline = { network: null, isOnline: () => false }

describe('local writes around the load', () => {
  test('an edit made while the stored state loads schedules no checkpoint (its outbox entry keeps it)', async () => {
    const slow = slowLoading()
    const b = open({ checkpointDelayMs: 100, flushWindowMs: 10, transport: offline }, slow.storage)
    b.text.insert(0, 'typed before the load')
    slow.release()
    await b.conn.ready
    for (let i = 0; i < 5; i++) {
      b.timers.advance(100)
      await settle()
    }
    expect(b.storage.commits.some((c) => c.add?.length === 1)).toBe(true)
    expect(b.storage.commits.filter((c) => c.checkpoint !== undefined)).toEqual([])
  })

  test("hiding the page before the stored state loaded leaves the last page's rescue in place", async () => {
    const base = createMemoryStorage()
    base.rescue?.save(textUpdate('rescued by the last page'))
    const slow = slowLoading(base)
    const page = scriptedPage()
    const b = open({ lifecycle: page.lifecycle, transport: offline }, slow.storage)
    page.hide()
    slow.release()
    await b.conn.ready
    expect(b.text.toString()).toBe('rescued by the last page')
  })
})

describe('the page-hide rescue', () => {
  test('a failed checkpoint leaves the rescue in place; a durable one clears it', async () => {
    const page = scriptedPage()
    const b = open({ lifecycle: page.lifecycle, transport: offline })
    await b.conn.ready
    b.text.insert(0, 'only in memory')
    b.storage.failCommits.on = true
    page.hide()
    await settle()
    expect(b.errors.map((e) => e.code)).toContain('CLIENT_STORAGE_FAILED')
    const rescued = new Y.Doc()
    Y.applyUpdate(rescued, b.storage.rescue?.peek() ?? new Uint8Array([0, 0]))
    expect(rescued.getText('t').toString()).toBe('only in memory')
    b.storage.failCommits.on = false
    page.hide()
    await settle()
    expect(b.storage.commits.some((c) => c.checkpoint !== undefined)).toBe(true)
    expect(b.storage.rescue?.peek()).toBeUndefined()
  })

  test('a storage without a rescue slot still checkpoints on page hide', async () => {
    const { rescue: _none, ...withoutRescue } = createMemoryStorage()
    const page = scriptedPage()
    const b = open({ lifecycle: page.lifecycle, transport: offline, checkpointDelayMs: 60_000 }, withoutRescue)
    await b.conn.ready
    b.text.insert(0, 'kept on hide')
    b.storage.commits.length = 0
    expect(() => page.hide()).not.toThrow()
    await settle()
    const checkpoint = b.storage.commits.find((c) => c.checkpoint !== undefined)?.checkpoint
    const reloaded = new Y.Doc()
    Y.applyUpdate(reloaded, checkpoint ?? new Uint8Array())
    expect(reloaded.getText('t').toString()).toBe('kept on hide')
  })
})
