import { describe, expect, test } from 'vitest'
import { SCALE_FULL, SCALE_QUICK, scaleSizes } from './scale.ts'

describe('the scale bench sizes from the command line', () => {
  test('are the full set by default and the small set with --quick', () => {
    expect(scaleSizes(['--scale'])).toEqual(SCALE_FULL)
    expect(scaleSizes(['--scale', '--quick'])).toEqual(SCALE_QUICK)
  })
  test('take each --scale-* flag over the set, and ignore values that are not positive numbers', () => {
    const sizes = scaleSizes([
      '--scale',
      '--scale-docs=50,500',
      '--scale-copies=2',
      '--scale-members=2,20',
      '--scale-window=-3',
      '--scale-join-bytes=2000000',
      '--scale-sidecars=10',
      '--scale-person-windows=3',
    ])
    expect(sizes.documents).toEqual([50, 500])
    expect(sizes.copies).toBe(2)
    expect(sizes.members).toEqual([2, 20])
    expect(sizes.windowSeconds).toBe(SCALE_FULL.windowSeconds)
    expect(sizes.joinBytes).toBe(2_000_000)
    expect(sizes.sidecars).toBe(10)
    expect(sizes.personWindows).toBe(3)
    expect(scaleSizes(['--scale-docs=abc,0']).documents).toEqual(SCALE_FULL.documents)
  })
})
