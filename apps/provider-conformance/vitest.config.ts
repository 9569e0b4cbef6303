import { defineProject } from 'vitest/config'
import { workspaceResolve } from '../../workspace-conditions.ts'

export default defineProject({
  ...workspaceResolve,
  test: {
    name: '@e2e-col/provider-conformance',
    // Whole stacks (toy daemon, two sidecars), and for the bindings a packed app, Vite and Chromium.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
