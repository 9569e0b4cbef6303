import { defineProject } from 'vitest/config'
import { workspaceResolve } from '../workspace-conditions.ts'

export default defineProject({
  ...workspaceResolve,
  test: {
    name: 'reliability',
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
})
