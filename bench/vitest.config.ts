import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'bench',
    include: ['**/*.test.ts'],
    // The convergence checks start whole stacks (toy daemon, sidecars, y-websocket server).
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
})
