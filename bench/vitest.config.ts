import { defineProject } from 'vitest/config'
import { workspaceResolve } from '../workspace-conditions.ts'

export default defineProject({
  ...workspaceResolve,
  test: {
    name: 'bench',
    include: ['**/*.test.ts'],
    // The convergence checks start whole stacks (toy daemon, sidecars, y-websocket server).
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
})
