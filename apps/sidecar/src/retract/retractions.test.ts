import { describe, expect, it, vi } from 'vitest'
import { createRetractions, RETRACT_LIMITS } from './retractions.ts'

const settle = () => new Promise((r) => setTimeout(r, 0))

function setup(over: { admin?: boolean; supported?: boolean; fails?: boolean } = {}) {
  let now = 1_000_000
  const adminDelete = vi.fn(async () => {
    if (over.fails === true) throw new Error('offline')
    return over.supported !== false
  })
  const logger = { info: vi.fn(), warn: vi.fn() }
  const outcomes: string[] = []
  const r = createRetractions({
    adminDelete,
    isAdmin: () => over.admin !== false,
    now: () => now,
    logger,
    counted: (o) => void outcomes.push(o),
  })
  return { r, adminDelete, logger, outcomes, tick: (ms: number) => void (now += ms) }
}

describe('retractions', () => {
  it('deletes the refused message by its author and sent timestamp', async () => {
    const { r, adminDelete, outcomes } = setup()
    r.refused('g1', '+15550003', 42)
    await settle()
    expect(adminDelete.mock.calls).toEqual([['g1', { author: '+15550003', timestamp: 42 }]])
    expect(outcomes).toEqual(['sent'])
  })

  it('sends at most perMemberPerMinute deletes for one member in a minute; another member has its own', async () => {
    const { r, adminDelete, outcomes, tick } = setup()
    const n = RETRACT_LIMITS.perMemberPerMinute
    for (let i = 0; i < n + 3; i += 1) r.refused('g1', '+15550003', i)
    r.refused('g1', '+15550004', 99)
    await settle()
    expect(adminDelete).toHaveBeenCalledTimes(n + 1)
    expect(outcomes.filter((o) => o === 'over-limit')).toHaveLength(3)
    // A minute on, the member's window has room again.
    tick(RETRACT_LIMITS.windowMs)
    r.refused('g1', '+15550003', 1000)
    expect(adminDelete).toHaveBeenCalledTimes(n + 2)
  })

  it('asks nothing when this account is no admin of the group', () => {
    const { r, adminDelete } = setup({ admin: false })
    r.refused('g1', '+15550003', 42)
    expect(adminDelete).not.toHaveBeenCalled()
  })

  it('an older daemon: logged once, then nothing asked', async () => {
    const { r, adminDelete, logger } = setup({ supported: false })
    r.refused('g1', '+15550003', 1)
    await settle()
    r.refused('g1', '+15550004', 2)
    expect(adminDelete).toHaveBeenCalledTimes(1)
    expect(logger.info).toHaveBeenCalledTimes(1)
  })

  it('a failed delete is counted and logged, and still spends the bound', async () => {
    const { r, adminDelete, logger, outcomes } = setup({ fails: true })
    for (let i = 0; i < RETRACT_LIMITS.perMemberPerMinute + 1; i += 1) r.refused('g1', '+15550003', i)
    await settle()
    expect(adminDelete).toHaveBeenCalledTimes(RETRACT_LIMITS.perMemberPerMinute)
    expect(logger.warn).toHaveBeenCalledTimes(RETRACT_LIMITS.perMemberPerMinute)
    expect(outcomes.filter((o) => o === 'failed')).toHaveLength(RETRACT_LIMITS.perMemberPerMinute)
  })

  it('remembers at most maxMembers members', () => {
    const { r, adminDelete } = setup()
    for (let i = 0; i <= RETRACT_LIMITS.maxMembers; i += 1) r.refused('g1', `m${i}`, 1)
    expect(adminDelete).toHaveBeenCalledTimes(RETRACT_LIMITS.maxMembers + 1)
  })
})
