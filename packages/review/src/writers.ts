/**
 * Who wrote an entry, as decision 0023 binds it: an account-derived client id belongs to the
 * account of its tag, so two ids with one tag are one writer (two pages, or a page and an agent of
 * one person); a legacy id (no tag) is a writer of its own.
 */
import { authorTagOf } from '@e2e-col/protocol'

export const sameWriter = (a: number, b: number): boolean => {
  const tag = authorTagOf(a)
  return tag === undefined ? a === b : tag === authorTagOf(b)
}
