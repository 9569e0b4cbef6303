import { defineProject } from 'vitest/config'
import { workspaceResolve } from '../../workspace-conditions.ts'

export default defineProject({
  ...workspaceResolve,
  test: {
    name: '@e2e-col/demo',
    // The browser and trace tests start a whole stack (toy daemon, two sidecars, Vite, Chromium).
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
