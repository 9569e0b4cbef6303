import { describe, expect, it } from 'vitest'
import {
  AUTHOR_TAG_MAX,
  AUTHOR_TAG_MIN,
  authorTagFromHash,
  authorTagOf,
  clientIdFor,
  isAuthorTag,
} from './author-id.ts'

describe('account-derived client ids', () => {
  it('reads back the tag an id was made for, whatever the random draw', () => {
    for (const tag of [AUTHOR_TAG_MIN, 12_345, AUTHOR_TAG_MAX])
      for (const r of [0, 1, 0xffff_ffff, 2 ** 22 - 1, 2 ** 22]) {
        const id = clientIdFor(tag, r)
        expect(Number.isSafeInteger(id)).toBe(true)
        expect(authorTagOf(id)).toBe(tag)
      }
  })

  it('keeps every derived id below 2^42 and above every Yjs-drawn one', () => {
    expect(clientIdFor(AUTHOR_TAG_MAX, 0xffff_ffff)).toBeLessThan(2 ** 42)
    expect(clientIdFor(AUTHOR_TAG_MIN, 0)).toBeGreaterThan(0xffff_ffff)
  })

  it('gives two draws of one tag different ids', () => {
    expect(clientIdFor(4242, 1)).not.toBe(clientIdFor(4242, 2))
  })

  it('says a Yjs-drawn id (below 2^32) carries no tag', () => {
    expect(authorTagOf(0)).toBeUndefined()
    expect(authorTagOf(0xffff_ffff)).toBeUndefined()
    expect(authorTagOf(-1)).toBeUndefined()
    expect(authorTagOf(1.5)).toBeUndefined()
    expect(authorTagOf(Number.MAX_SAFE_INTEGER + 2)).toBeUndefined()
  })

  it('refuses to make an id for something that is not a tag', () => {
    expect(() => clientIdFor(AUTHOR_TAG_MIN - 1, 0)).toThrow(RangeError)
    expect(() => clientIdFor(AUTHOR_TAG_MAX + 1, 0)).toThrow(RangeError)
    expect(isAuthorTag(1.5)).toBe(false)
  })

  it('folds any hash head into the tag range', () => {
    expect(authorTagFromHash(new Uint8Array([0, 0, 0, 0]))).toBe(AUTHOR_TAG_MIN)
    const top = authorTagFromHash(new Uint8Array([0xff, 0xff, 0xff, 0xff]))
    expect(isAuthorTag(top)).toBe(true)
    expect(authorTagFromHash(new Uint8Array([1, 2, 3, 4]))).not.toBe(authorTagFromHash(new Uint8Array([1, 2, 3, 5])))
    expect(() => authorTagFromHash(new Uint8Array(3))).toThrow(RangeError)
  })
})
