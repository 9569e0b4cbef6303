import { authorTagFromHash, authorTagOf, AUTHOR_TAG_MAX, AUTHOR_TAG_MIN, clientIdFor } from '@e2e-col/protocol'
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { authorTagOfAccount } from './author-tag.ts'

describe("an account's author tag", () => {
  it('is the first 4 bytes of sha256("e2e-col author tag v1\\n" + number), folded into the tag range', () => {
    const number = '+15555550101'
    const hash = createHash('sha256').update(`e2e-col author tag v1\n${number}`).digest()
    expect(authorTagOfAccount(number)).toBe(authorTagFromHash(hash))
    expect(authorTagOfAccount(number)).toBeGreaterThanOrEqual(AUTHOR_TAG_MIN)
    expect(authorTagOfAccount(number)).toBeLessThanOrEqual(AUTHOR_TAG_MAX)
  })

  it('is the same for the same number everywhere, differs between numbers, and ids made from it carry it', () => {
    const a = authorTagOfAccount('+15555550101')
    expect(authorTagOfAccount('+15555550101')).toBe(a)
    expect(authorTagOfAccount('+15555550102')).not.toBe(a)
    expect(authorTagOf(clientIdFor(a, 2 ** 32 + 5))).toBe(a)
  })
})
