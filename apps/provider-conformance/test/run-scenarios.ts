/** Registers every scenario against one target, started once for the file and closed after it. */
import { afterAll, beforeAll, describe, test } from 'vitest'
import type { ProviderTarget } from './provider-target.ts'
import { SCENARIOS } from './scenarios.ts'

export function runProviderConformance(name: string, start: () => Promise<ProviderTarget>): void {
  describe(`provider conformance: ${name}`, () => {
    let target: ProviderTarget | undefined
    beforeAll(async () => {
      target = await start()
    }, 60_000)
    afterAll(async () => {
      await target?.close()
    }, 60_000)
    for (const scenario of SCENARIOS) {
      const title = scenario.differs === undefined ? scenario.name : `${scenario.name} (differs: ${scenario.differs})`
      test(
        title,
        async () => {
          if (target === undefined) throw new Error('the target did not start')
          await scenario.run(target)
        },
        30_000,
      )
    }
  })
}
