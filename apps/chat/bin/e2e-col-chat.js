#!/usr/bin/env node
// The `e2e-col-chat` bin (`e2e-col chat` runs it): runs the TypeScript source directly, no build step.
import { runSource } from '../../../scripts/run-source.js'

await runSource(new URL('../src/main.ts', import.meta.url))
