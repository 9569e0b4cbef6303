import type { GroupListing } from '@e2e-col/signal-cli'
import { describe, expect, it, vi } from 'vitest'
import { createSelfLabels, ownLabelIn } from './self-label.ts'

const SELF = { number: '+15550001', uuid: 'u-self' }
const entry = (label?: string, more: Partial<GroupListing[number]> = {}): GroupListing[number] => ({
  id: 'g1',
  isMember: true,
  members: [
    { number: '+15550002', label: 'viewer' },
    { ...SELF, ...(label === undefined ? {} : { label }) },
  ],
  ...more,
})
const quiet = () => ({ info: vi.fn(), warn: vi.fn() })
const settle = () => new Promise((r) => setTimeout(r, 0))

describe('self labels', () => {
  it("reads this account's own label, not another member's", () => {
    expect(ownLabelIn(entry('editor'), SELF)).toBe('editor')
    expect(ownLabelIn(entry(), SELF)).toBeUndefined()
    expect(ownLabelIn(entry('editor'), { uuid: 'u-self' })).toBe('editor')
  })

  it('asks once per role: a listing that already shows the role, or a call in flight, asks nothing', async () => {
    const labelSelf = vi.fn(async () => true)
    const labels = createSelfLabels({ labelSelf, self: SELF, logger: quiet() })
    labels.seen(entry('viewer'), 'viewer')
    expect(labelSelf).not.toHaveBeenCalled()
    labels.seen(entry('viewer'), 'editor')
    labels.seen(entry('viewer'), 'editor')
    await settle()
    labels.seen(entry('viewer'), 'editor')
    expect(labelSelf.mock.calls).toEqual([['g1', 'editor']])
  })

  it('asks nothing for a group it is not in or that has ended', () => {
    const labelSelf = vi.fn(async () => true)
    const labels = createSelfLabels({ labelSelf, self: SELF, logger: quiet() })
    labels.seen(entry(undefined, { isMember: false }), 'viewer')
    labels.seen(entry(undefined, { isTerminated: true }), 'viewer')
    expect(labelSelf).not.toHaveBeenCalled()
  })

  it('an older daemon: logged once, then nothing asked for any group', async () => {
    const labelSelf = vi.fn(async () => false)
    const logger = quiet()
    const labels = createSelfLabels({ labelSelf, self: SELF, logger })
    labels.seen(entry(), 'viewer')
    await settle()
    labels.seen({ ...entry(), id: 'g2' }, 'viewer')
    labels.seen(entry(), 'editor')
    expect(labelSelf).toHaveBeenCalledTimes(1)
    expect(logger.info).toHaveBeenCalledTimes(1)
  })

  it('a refused label is logged and not asked again until the role changes', async () => {
    const labelSelf = vi.fn(async () => {
      throw new Error('403')
    })
    const logger = quiet()
    const labels = createSelfLabels({ labelSelf, self: SELF, logger })
    labels.seen(entry(), 'viewer')
    await settle()
    labels.seen(entry(), 'viewer')
    expect(labelSelf).toHaveBeenCalledTimes(1)
    expect(logger.warn).toHaveBeenCalledTimes(1)
    labels.seen(entry(), 'editor')
    expect(labelSelf).toHaveBeenCalledTimes(2)
  })
})
