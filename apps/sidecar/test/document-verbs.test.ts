/**
 * `Document` stays narrow (#39, decisions/0030): a served document has at most twelve members; a new
 * verb goes to the side of the feature that owns it (`doc.pages`, `doc.group`, `doc.roles`, …).
 * The list below must name every member: one added to the interface fails the typecheck until it is
 * listed here, and then this test counts it.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import type { Document } from '../src/document/document.ts'

const MEMBERS = [
  'docId',
  'groupId',
  'carry',
  'pages',
  'group',
  'roles',
  'outbox',
  'content',
  'close',
] as const satisfies readonly (keyof Document)[]

// The keys of Document that MEMBERS misses: none, or typecheck fails (expectTypeOf below).
type Unlisted = Exclude<keyof Document, (typeof MEMBERS)[number]>

describe('Document', () => {
  it('has at most twelve members, each listed', () => {
    expectTypeOf<Unlisted>().toEqualTypeOf<never>()
    expect(new Set(MEMBERS).size).toBe(MEMBERS.length)
    expect(MEMBERS.length).toBeLessThanOrEqual(12)
  })
})
