#!/usr/bin/env node
// The `e2e-col-chat` bin (`e2e-col chat` runs it): runs the TypeScript source directly through tsx, no build step.
import { register } from 'tsx/esm/api'

register()
await import('../src/main.ts')
