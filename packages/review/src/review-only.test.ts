import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { addComment, replyTo, resolveComment } from './comments.ts'
import { REVIEW_LIMITS } from './limits.ts'
import { checkReviewOnlyUpdate, type ReviewOnly } from './review-only.ts'
import { REVIEW_ROOT, reviewMap, type Target } from './structure.ts'
import { baseOf } from './base.ts'
import { createSuggestion, decideWithout, acceptSuggestion } from './suggestions.ts'
import { ALICE_TAG, CAROL_TAG, counter, docOf, since, syncDocs } from './testing-docs.ts'

const TEXT: Target = { name: 'text', kind: 'text' }

/** Alice (editor) wrote the text; Carol (commenter) holds a replica of it. */
function group(): { alice: Y.Doc; carol: Y.Doc } {
  const alice = docOf(ALICE_TAG)
  alice.getText('text').insert(0, 'Day 1: museum. Day 2: long hike.')
  const carol = docOf(CAROL_TAG)
  syncDocs(alice, carol)
  return { alice, carol }
}

/** What Carol's page sends after `act`: its document's diff since before, delete set whole. */
function carolSends(carol: Y.Doc, act: () => void): Uint8Array {
  const before = Y.encodeStateVector(carol)
  act()
  return since(carol, before)
}

const codeOf = (r: ReviewOnly): string => (r.ok ? 'ok' : r.violation.code)

/** Writes a v1 update of the given structs (one client) and delete set, as Yjs would. */
function craft(items: Y.Item[], ds: { client: number; clock: number; len: number }[] = []): Uint8Array {
  const enc = new Y.UpdateEncoderV1()
  const first = items[0]
  if (first === undefined) enc.writeLen(0)
  else {
    enc.writeLen(1)
    enc.writeLen(items.length)
    enc.writeClient(first.id.client)
    enc.writeLen(first.id.clock)
    for (const i of items) i.write(enc, 0)
  }
  const clients = [...new Set(ds.map((d) => d.client))]
  enc.writeLen(clients.length)
  for (const c of clients) {
    const mine = ds.filter((d) => d.client === c)
    enc.writeClient(c)
    enc.writeLen(mine.length)
    for (const d of mine) {
      enc.writeDsClock(d.clock)
      enc.writeDsLen(d.len)
    }
  }
  return enc.toUint8Array()
}

const entryItem = (
  client: number,
  clock: number,
  fields: {
    parent?: string | Y.ID
    key?: string | null
    origin?: Y.ID
    right?: Y.ID
    content?: ConstructorParameters<typeof Y.Item>[7]
  } = {},
): Y.Item =>
  new Y.Item(
    Y.createID(client, clock),
    null,
    fields.origin ?? null,
    null,
    fields.right ?? null,
    (fields.parent ?? REVIEW_ROOT) as unknown as Y.AbstractType<unknown>,
    fields.key === undefined ? 'c:abcdefgh12' : fields.key,
    fields.content ??
      new Y.ContentAny([
        { v: 1, target: TEXT, anchor: { start: {}, end: {} }, quote: 'x', body: 'hi', mentions: [], at: 1 },
      ]),
  )

describe('a commenter writing review entries passes every sidecar', () => {
  it('a comment, a reply, a resolution and a suggestion, each as the page sends it, are ok and apply', () => {
    const { alice, carol } = group()
    const random = counter(3)
    const updates = [
      carolSends(carol, () => addComment(carol, { target: TEXT, index: 0, length: 5, body: '@Bob?', at: 1, random })),
      carolSends(carol, () => {
        const [id] = [...reviewMap(carol).keys()].map((k) => k.slice(2))
        replyTo(carol, id ?? '', { body: 'yes', at: 2, random })
        resolveComment(carol, id ?? '', true, 3, random)
      }),
      carolSends(carol, () =>
        createSuggestion(carol, {
          target: TEXT,
          base: baseOf(carol),
          find: 'long hike',
          replace: 'walk',
          at: 4,
          random,
        }),
      ),
    ]
    for (const u of updates) {
      const r = checkReviewOnlyUpdate(alice, u)
      expect(codeOf(r)).toBe('ok')
      if (r.ok) Y.applyUpdate(alice, r.update)
    }
    expect([...reviewMap(alice).keys()].map((k) => k[0]).sort()).toEqual(['c', 'c', 'r', 's'])
  })

  it("withdrawing its own suggestion is ok; withdrawing another member's, or accepting, is REVIEW_DECISION", () => {
    const { alice, carol } = group()
    const random = counter(5)
    const mine = createSuggestion(carol, {
      target: TEXT,
      base: baseOf(carol),
      find: 'museum',
      replace: 'zoo',
      at: 1,
      random,
    })
    const theirs = createSuggestion(alice, {
      target: TEXT,
      base: baseOf(alice),
      find: 'hike',
      replace: 'walk',
      at: 1,
      random,
    })
    syncDocs(alice, carol)
    const withdraw = carolSends(carol, () => decideWithout(carol, mine, 'withdrawn', 2))
    expect(codeOf(checkReviewOnlyUpdate(alice, withdraw))).toBe('ok')
    const other = carolSends(carol, () => decideWithout(carol, theirs, 'withdrawn', 2))
    expect(codeOf(checkReviewOnlyUpdate(alice, other))).toBe('REVIEW_DECISION')
    const fresh = group()
    const id = createSuggestion(fresh.alice, {
      target: TEXT,
      base: baseOf(fresh.alice),
      find: 'hike',
      replace: 'run',
      at: 1,
      random,
    })
    syncDocs(fresh.alice, fresh.carol)
    const accept = carolSends(fresh.carol, () => acceptSuggestion(fresh.carol, id, 2))
    expect(codeOf(checkReviewOnlyUpdate(fresh.alice, accept))).toBe('REVIEW_ORIGIN')
  })

  it("the page's whole delete set (editors' deletions it already has) is cut, not refused, and deletes nothing here", () => {
    const { alice, carol } = group()
    const lagging = docOf(ALICE_TAG, 9) // a replica that has Alice's text but not her deletion yet
    syncDocs(alice, lagging)
    alice.getText('text').delete(0, 7)
    syncDocs(alice, carol)
    const u = carolSends(carol, () =>
      addComment(carol, { target: TEXT, index: 0, length: 6, body: 'ok', at: 1, random: counter() }),
    )
    expect(Y.decodeUpdate(u).ds.clients.size).toBe(1)
    const r = checkReviewOnlyUpdate(lagging, u)
    expect(r).toMatchObject({ ok: true, entries: 1, cut: { ranges: 1, live: 1 } })
    if (r.ok) Y.applyUpdate(lagging, r.update)
    expect(lagging.getText('text').toString()).toBe('Day 1: museum. Day 2: long hike.')
    expect(reviewMap(lagging).size).toBe(1)
  })
})

describe("a commenter's crafted content is a typed violation", () => {
  const carolId = docOf(CAROL_TAG).clientID

  it('typing into the text (at its start: explicit parent; after a character: an origin in content)', () => {
    const { alice, carol } = group()
    expect(
      codeOf(
        checkReviewOnlyUpdate(
          alice,
          carolSends(carol, () => carol.getText('text').insert(0, 'X')),
        ),
      ),
    ).toBe('REVIEW_ORIGIN')
    const empty = docOf(ALICE_TAG)
    const blank = docOf(CAROL_TAG)
    expect(
      codeOf(
        checkReviewOnlyUpdate(
          empty,
          carolSends(blank, () => blank.getText('text').insert(0, 'X')),
        ),
      ),
    ).toBe('REVIEW_PARENT')
  })

  it('an entry whose origin is a content item (its parent implied from content) is REVIEW_ORIGIN', () => {
    const { alice } = group()
    const contentId = Y.createID(alice.clientID, 3)
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([entryItem(carolId, 0, { origin: contentId })])))).toBe(
      'REVIEW_ORIGIN',
    )
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([entryItem(carolId, 0, { right: contentId })])))).toBe(
      'REVIEW_ORIGIN',
    )
  })

  it('text disguised under the review root, a nested type there, or content under a review entry are refused', () => {
    const { alice, carol } = group()
    const string = entryItem(carolId, 0, { content: new Y.ContentString('evil') })
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([string])))).toBe('REVIEW_CONTENT')
    const nested = entryItem(carolId, 0, { content: new Y.ContentType(new Y.Text()) })
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([nested])))).toBe('REVIEW_CONTENT')
    const viaMap = carolSends(carol, () => reviewMap(carol).set('c:abcdefgh99', new Y.Map()))
    expect(codeOf(checkReviewOnlyUpdate(alice, viaMap))).toBe('REVIEW_CONTENT')
    const underEntry = entryItem(carolId, 0, { parent: Y.createID(alice.clientID, 0), key: null })
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([underEntry])))).toBe('REVIEW_PARENT')
    const otherRoot = entryItem(carolId, 0, { parent: 'text', key: null, content: new Y.ContentString('X') })
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([otherRoot])))).toBe('REVIEW_PARENT')
  })

  it('a list insert into the root, a key this version does not write, or a malformed entry', () => {
    const { alice } = group()
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([entryItem(carolId, 0, { key: null })])))).toBe('REVIEW_KEY')
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([entryItem(carolId, 0, { key: 'x:abcdefgh' })])))).toBe(
      'REVIEW_KEY',
    )
    const junk = entryItem(carolId, 0, { content: new Y.ContentAny([{ v: 1, body: 7 }]) })
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([junk])))).toBe('REVIEW_CONTENT')
    const two = entryItem(carolId, 0, { content: new Y.ContentAny([1, 2]) })
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([two])))).toBe('REVIEW_CONTENT')
  })

  it('overwriting an entry the replica holds, or one key twice in a message, is REVIEW_OVERWRITE', () => {
    const { alice } = group()
    reviewMap(alice).set('c:abcdefgh12', { v: 1 })
    expect(codeOf(checkReviewOnlyUpdate(alice, craft([entryItem(carolId, 0)])))).toBe('REVIEW_OVERWRITE')
    const fresh = group().alice
    expect(codeOf(checkReviewOnlyUpdate(fresh, craft([entryItem(carolId, 0), entryItem(carolId, 1)])))).toBe(
      'REVIEW_OVERWRITE',
    )
  })

  it(`an entry over ${REVIEW_LIMITS.maxEntryBytes} bytes, and more than ${REVIEW_LIMITS.maxEntriesPerUpdate} entries in a message`, () => {
    const { alice } = group()
    const body = 'x'.repeat(REVIEW_LIMITS.maxEntryBytes)
    expect(
      codeOf(checkReviewOnlyUpdate(alice, craft([entryItem(carolId, 0, { content: new Y.ContentAny([{ body }]) })]))),
    ).toBe('REVIEW_CONTENT')
    const many = (n: number): Y.Item[] =>
      Array.from({ length: n }, (_, i) => entryItem(carolId, i, { key: `c:abcdefgh${String(i).padStart(3, '0')}` }))
    expect(codeOf(checkReviewOnlyUpdate(alice, craft(many(REVIEW_LIMITS.maxEntriesPerUpdate))))).toBe('ok')
    expect(codeOf(checkReviewOnlyUpdate(alice, craft(many(REVIEW_LIMITS.maxEntriesPerUpdate + 1))))).toBe(
      'REVIEW_TOO_MANY_ENTRIES',
    )
  })

  it('a GC struct and bytes that are not an update', () => {
    const { alice } = group()
    const enc = new Y.UpdateEncoderV1()
    enc.writeLen(1)
    enc.writeLen(1)
    enc.writeClient(carolId)
    enc.writeLen(0)
    new Y.GC(Y.createID(carolId, 0), 3).write(enc, 0)
    enc.writeLen(0)
    expect(codeOf(checkReviewOnlyUpdate(alice, enc.toUint8Array()))).toBe('REVIEW_GC')
    expect(codeOf(checkReviewOnlyUpdate(alice, Uint8Array.of(9, 9, 9)))).toBe('REVIEW_UNDECODABLE')
  })

  it('a crafted delete of the whole text beside a valid comment: the comment lands, the text stays', () => {
    const { alice } = group()
    const u = craft([entryItem(carolId, 0)], [{ client: alice.clientID, clock: 0, len: 32 }])
    const r = checkReviewOnlyUpdate(alice, u)
    expect(r).toMatchObject({ ok: true, cut: { ranges: 1, live: 1 } })
    if (r.ok) Y.applyUpdate(alice, r.update)
    expect(alice.getText('text').toString()).toBe('Day 1: museum. Day 2: long hike.')
    expect(reviewMap(alice).has('c:abcdefgh12')).toBe(true)
  })

  it(`a delete set naming many structs walks at most ${REVIEW_LIMITS.maxStructsWalked} of them`, () => {
    const alice = docOf(ALICE_TAG)
    const m = alice.getMap('content')
    const n = REVIEW_LIMITS.maxStructsWalked + 1000
    // One struct per key: map entries never merge.
    alice.transact(() => {
      for (let i = 0; i < n; i++) m.set(`k${i}`, i)
    })
    const r = checkReviewOnlyUpdate(alice, craft([], [{ client: alice.clientID, clock: 0, len: n }]))
    expect(r).toMatchObject({ ok: true, cut: { ranges: 1, live: REVIEW_LIMITS.maxStructsWalked } })
    const small = checkReviewOnlyUpdate(alice, craft([], [{ client: alice.clientID, clock: 10, len: 5 }]))
    expect(small).toMatchObject({ ok: true, cut: { ranges: 1, live: 5 } })
  })

  it('the replica is only read: a check leaves it byte for byte as it was', () => {
    const { alice, carol } = group()
    const before = Y.encodeStateAsUpdate(alice)
    const u = carolSends(carol, () => carol.getText('text').insert(3, 'X'))
    checkReviewOnlyUpdate(alice, craft([entryItem(carolId, 0)], [{ client: alice.clientID, clock: 0, len: 5 }]))
    checkReviewOnlyUpdate(alice, u)
    expect(Y.encodeStateAsUpdate(alice)).toEqual(before)
    expect(alice.share.has(REVIEW_ROOT)).toBe(false)
  })
})
