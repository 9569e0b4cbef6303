/** A fuzz target: an input generator and a check that throws on a finding. */
import type fc from 'fast-check'

export interface FuzzTarget<T> {
  readonly name: string
  readonly arbitrary: fc.Arbitrary<T>
  /** Throws on a finding; may be async. Returns how many cases the input stood for (default 1). */
  check(input: T): void | number | Promise<void | number>
}
