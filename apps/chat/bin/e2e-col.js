#!/usr/bin/env node
// The `e2e-col` bin: runs the TypeScript source directly through tsx, no build step.
import { register } from 'tsx/esm/api'

register()
await import('../src/main.ts')
