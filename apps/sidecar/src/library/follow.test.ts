/**
 * The library following its groups (follow.ts): a listing the membership owner took that shows
 * this account out of a served document's group stops serving it, unless the document was added
 * after the listing was asked; a group update looks at the one group again. The shelf is a fake
 * that records what it was told; the steps are the real ones.
 */
import type { GroupListing } from '@e2e-col/signal-cli'
import { describe, expect, it } from 'vitest'
import type { StoredDocument } from '../replica/doc-table.ts'
import { createFollow } from './follow.ts'
import type { Shelf } from './shelf.ts'
import { createSteps } from './steps.ts'

const YOU = '+15550000001'
const G1 = 'group-one'
const G2 = 'group-two'
const silent = { warn: () => undefined, debug: () => undefined, info: () => undefined } as never

const row = (docId: string, groupId: string, addedAt: number, state: StoredDocument['state'] = 'active') =>
  ({ docId, groupId, title: docId, members: [], addedAt, changedAt: 0, state }) as StoredDocument

function setup(rows: StoredDocument[], answer: GroupListing = [], fixed: { docId: string; groupId: string }[] = []) {
  const removed: string[] = []
  const remembered: string[] = []
  const ended: string[] = []
  const shelf = {
    fixedDocs: () => fixed,
    isFixed: (docId: string) => fixed.some((f) => f.docId === docId),
    isEnded: (docId: string) => ended.includes(docId),
    isServed: (docId: string) => !ended.includes(docId),
    endFixed: (docId: string) => void ended.push(docId),
    rows: () => rows,
    row: (docId: string) => rows.find((r) => r.docId === docId),
    servedIn: (groupId: string) => rows.find((r) => r.groupId === groupId && r.state === 'active')?.docId,
    markRemoved: (r: StoredDocument) => void removed.push(r.docId),
    remember: (r: StoredDocument) => void remembered.push(r.docId),
  } as unknown as Shelf
  const asked: (string | undefined)[] = []
  const follow = createFollow({
    listGroups: (groupId) => (asked.push(groupId), Promise.resolve(answer)),
    you: YOU,
    shelf,
    steps: createSteps({ stopped: () => false, storing: (fn) => fn() }),
    logger: silent,
  })
  return { follow, removed, remembered, asked, ended }
}

const out = (id: string) => ({ id, isMember: false, members: ['+15550000002'] })
const inGroup = (id: string) => ({ id, isMember: true, members: [YOU] })
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('the library following its groups', () => {
  it('stops serving a document a listing shows this account out of, and leaves the others', async () => {
    const s = setup([row('d1', G1, 100), row('d2', G2, 100)])
    s.follow.onListed({ listing: [out(G1), inGroup(G2)] as GroupListing, whole: true, askedAt: 500 })
    await settle()
    expect(s.removed).toEqual(['d1'])
    expect(s.asked).toEqual([])
  })

  it('leaves a document added after the listing was asked (the listing may predate joining it)', async () => {
    const s = setup([row('d1', G1, 500), row('d2', G2, 499)])
    s.follow.onListed({ listing: [out(G1), out(G2)] as GroupListing, whole: false, askedAt: 500 })
    await settle()
    expect(s.removed).toEqual(['d2'])
  })

  it('does nothing for removed rows or a listing that names none of its groups', async () => {
    const s = setup([row('d1', G1, 100, 'removed')])
    s.follow.onListed({ listing: [out(G1), out('elsewhere')] as GroupListing, whole: true, askedAt: 500 })
    s.follow.onListed({ listing: [inGroup(G1)] as GroupListing, whole: true, askedAt: 500 })
    await settle()
    expect(s.removed).toEqual([])
  })

  it('looks at an updated group once however many updates wait, and keeps what it says', async () => {
    const s = setup([row('d1', G1, 100)], [inGroup(G1)] as GroupListing)
    s.follow.onGroupUpdate(G1)
    s.follow.onGroupUpdate(G1)
    s.follow.onGroupUpdate('not-served')
    await settle()
    expect(s.asked).toEqual([G1])
    expect(s.remembered).toEqual(['d1'])
    expect(s.removed).toEqual([])
  })

  it('ends a fixed document whose group a listing shows ended, and only that one', async () => {
    const fixed = [
      { docId: 'f1', groupId: G1 },
      { docId: 'f2', groupId: G2 },
    ]
    const s = setup([], [], fixed)
    const ended = { id: G1, isMember: true, isTerminated: true, members: [YOU] }
    s.follow.onListed({ listing: [ended, inGroup(G2)] as GroupListing, whole: true, askedAt: 500 })
    await settle()
    await settle()
    expect(s.ended).toEqual(['f1'])
    // At start too: the stored ones and the fixed ones are looked at.
    const t = setup([], [ended, inGroup(G2)] as GroupListing, fixed)
    await t.follow.refresh()
    expect(t.ended).toEqual(['f1'])
  })
})
