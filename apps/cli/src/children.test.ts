import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { binOf, nodeArgs, spawnChild } from './children.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A bin with `shebang` that prints the options its Node was started with. */
function bin(shebang: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-children-'))
  dirs.push(dir)
  const script = join(dir, 'bin.mjs')
  writeFileSync(script, `${shebang}\nconsole.log(JSON.stringify(process.execArgv))\n`)
  return script
}

async function execArgvOf(script: string): Promise<string[]> {
  const lines: string[] = []
  const child = spawnChild('probe', script, ['an-argument'], { env: process.env, onLine: (line) => lines.push(line) })
  const { code } = await child.exited
  expect(code).toBe(0)
  return JSON.parse(lines[0] ?? 'null') as string[]
}

describe('running a workspace bin as its shebang would', () => {
  it("gives the child the Node options on the bin's shebang line", async () => {
    const script = bin('#!/usr/bin/env -S node --max-semi-space-size=1 --stack-size=900')
    expect(await execArgvOf(script)).toEqual(['--max-semi-space-size=1', '--stack-size=900'])
  })

  it('gives no options to a bin with a plain shebang, and keeps the arguments after the bin', async () => {
    const script = bin('#!/usr/bin/env node')
    expect(await execArgvOf(script)).toEqual([])
    expect(nodeArgs(script, ['--config', 'x.json'])).toEqual([script, '--config', 'x.json'])
  })

  it('runs the sidecar with a small young generation, the memory docs/performance.md §13 measures', () => {
    const sidecar = binOf('@e2e-col/sidecar', 'e2e-col-sidecar')
    expect(nodeArgs(sidecar, ['--help'])).toEqual(['--max-semi-space-size=1', sidecar, '--help'])
  })
})
