/**
 * The sidecar's run state: a store failure before the start is up only marks it stopped (the start
 * then fails with it); after, it shuts down once and reports; a shutdown runs once whoever asks.
 */
import { describe, expect, it } from 'vitest'
import { createCloserStack } from '../closers.ts'
import { StoreError } from '../errors.ts'
import { createLifecycle } from './lifecycle.ts'

const silent = { fatal: () => undefined } as never

function setup() {
  const closers = createCloserStack()
  let unwound = 0
  closers.push(() => void (unwound += 1))
  const fatals: StoreError[] = []
  const life = createLifecycle({
    closers,
    storePath: '/data/store.db',
    logger: silent,
    onFatal: (e) => void fatals.push(e),
  })
  return { life, fatals, unwound: () => unwound }
}

describe('the run state', () => {
  it('before ready, a store failure only stops storing, keeps the first failure, and shuts nothing down', () => {
    const s = setup()
    expect(s.life.storing(() => 1)).toBe(1)
    const first = new StoreError('/data/store.db', 'disk full')
    expect(
      s.life.storing(() => {
        throw first
      }),
    ).toBeUndefined()
    s.life.fatal(new Error('later'))
    expect(s.life.stopped()).toBe(true)
    expect(s.life.failure()).toBe(first)
    expect(s.life.storing(() => 2)).toBeUndefined()
    expect(s.unwound()).toBe(0)
    expect(s.fatals).toEqual([])
  })

  it('after ready, a store failure shuts down once with reason store-failed and reports a StoreError', async () => {
    const s = setup()
    s.life.markReady()
    s.life.fatal(new Error('not a store error'))
    await s.life.stop()
    expect(s.unwound()).toBe(1)
    expect(s.life.reason()).toBe('store-failed')
    expect(s.fatals.map((e) => [e.code, e.message])).toEqual([
      ['SIDECAR_STORE_FAILED', 'replica store /data/store.db: unexpected failure (not a store error)'],
    ])
  })

  it('shuts down once however often it is asked, with reason requested', async () => {
    const s = setup()
    s.life.markReady()
    await Promise.all([s.life.stop(), s.life.stop()])
    await s.life.stop()
    expect(s.unwound()).toBe(1)
    expect(s.life.reason()).toBe('requested')
  })

  it('a failed start unwinds with reason start-failed; closing stops admitting, halt stops storing', async () => {
    const s = setup()
    s.life.markReady()
    s.life.closing()
    expect(s.life.ready()).toBe(false)
    s.life.halt()
    expect(s.life.storing(() => 1)).toBeUndefined()
    await s.life.failStart()
    expect(s.life.reason()).toBe('start-failed')
    expect(s.unwound()).toBe(1)
  })
})
