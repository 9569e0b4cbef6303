#!/usr/bin/env node
// Runs the TypeScript entry without a build step: tsx compiles it on load.
import { register } from 'tsx/esm/api'

register()
await import('../src/main.ts')
