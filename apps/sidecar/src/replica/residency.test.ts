import { describe, expect, it } from 'vitest'
import { createResidency, type Standing } from './residency.ts'

const QUIET: Standing = { safe: true, quiet: true }
const ASKING: Standing = { safe: true, quiet: false }
const UNSAVED: Standing = { safe: false, quiet: false }

function setup(o: { evictAfterMs: number; maxLoaded: number }) {
  let now = 0
  const residency = createResidency({ ...o, now: () => now })
  return { residency, at: (ms: number) => void (now = ms) }
}

describe('residency', () => {
  it('takes a quiet document out once it has been untouched for evictAfterMs, not before', () => {
    const { residency, at } = setup({ evictAfterMs: 60_000, maxLoaded: 100 })
    residency.touch('a')
    at(59_999)
    expect(residency.due(() => QUIET)).toEqual([])
    at(60_000)
    expect(residency.due(() => QUIET)).toEqual(['a'])
  })

  it('keeps a stale document that is asking its group or holds something unsaved', () => {
    const { residency, at } = setup({ evictAfterMs: 1000, maxLoaded: 100 })
    residency.touch('asking')
    residency.touch('unsaved')
    at(10_000)
    expect(residency.due((id) => (id === 'asking' ? ASKING : UNSAVED))).toEqual([])
  })

  it('beyond maxLoaded takes the least recently used safe ones out first, a touch making one recent again', () => {
    const { residency, at } = setup({ evictAfterMs: 0, maxLoaded: 2 })
    for (const id of ['a', 'b', 'c', 'd']) residency.touch(id)
    at(5000)
    residency.touch('a')
    at(10_000)
    // An ask waiting does not keep one in memory beyond the bound; something unsaved does.
    expect(residency.due((id) => (id === 'c' ? UNSAVED : ASKING))).toEqual(['b', 'd'])
    // Room for one more load: one more goes.
    expect(residency.due(() => QUIET, 1)).toEqual(['b', 'c', 'd'])
  })

  it('beyond the bound takes out a quiet document before one whose ask of the group still waits', () => {
    const { residency, at } = setup({ evictAfterMs: 0, maxLoaded: 1 })
    residency.touch('asking')
    residency.touch('quiet')
    at(5000)
    expect(residency.due((id) => (id === 'asking' ? ASKING : QUIET))).toEqual(['quiet'])
  })

  it('never takes out a document used in the last two seconds, whatever the count', () => {
    const { residency, at } = setup({ evictAfterMs: 0, maxLoaded: 1 })
    residency.touch('a')
    at(1000)
    residency.touch('b')
    at(2500)
    expect(residency.due(() => QUIET)).toEqual(['a'])
    residency.forget('a')
    expect(residency.size).toBe(1)
    expect(residency.due(() => QUIET, 1)).toEqual([])
  })
})
