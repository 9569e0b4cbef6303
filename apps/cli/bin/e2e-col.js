#!/usr/bin/env node
// Runs the TypeScript source directly (no build step) by registering tsx's ESM loader.
import { register } from 'tsx/esm/api'

register()
await import('../src/main.ts')
