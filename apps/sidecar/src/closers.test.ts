import { describe, expect, it } from 'vitest'
import { createCloserStack } from './closers.ts'

describe('closer stack', () => {
  it('closes in reverse order of opening, awaiting each', async () => {
    const closed: string[] = []
    const stack = createCloserStack()
    stack.push(() => void closed.push('backend'))
    stack.push(async () => {
      await new Promise((r) => setTimeout(r, 5))
      closed.push('store')
    })
    stack.push(() => void closed.push('server'))
    await stack.unwind()
    expect(closed).toEqual(['server', 'store', 'backend'])
  })

  it('runs every closer when one throws, then rethrows the first error', async () => {
    const closed: string[] = []
    const stack = createCloserStack()
    stack.push(() => void closed.push('store'))
    stack.push(() => {
      throw new Error('first')
    })
    stack.push(() => {
      throw new Error('second')
    })
    await expect(stack.unwind()).rejects.toThrow('second')
    expect(closed).toEqual(['store'])
  })

  it('unwinds once: a second call waits for the same run', async () => {
    let runs = 0
    const stack = createCloserStack()
    stack.push(() => void (runs += 1))
    await Promise.all([stack.unwind(), stack.unwind()])
    expect(runs).toBe(1)
  })
})
