import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { binOf, nodeArgs, spawnChild } from './children.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A bin in `bin/` of a package whose package.json has `fields`; it prints its Node's options. */
function bin(fields: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-col-children-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'probe', ...fields }))
  mkdirSync(join(dir, 'bin'))
  const script = join(dir, 'bin', 'probe.mjs')
  writeFileSync(script, '#!/usr/bin/env node\nconsole.log(JSON.stringify(process.execArgv))\n')
  return script
}

async function execArgvOf(script: string): Promise<string[]> {
  const lines: string[] = []
  const child = spawnChild('probe', script, ['an-argument'], { env: process.env, onLine: (line) => lines.push(line) })
  const { code } = await child.exited
  expect(code).toBe(0)
  return JSON.parse(lines[0] ?? 'null') as string[]
}

describe('running a workspace bin with the Node options its package asks for', () => {
  it('gives the child the options listed in its package.json', async () => {
    const script = bin({ e2eColNodeOptions: ['--max-semi-space-size=1', '--stack-size=900'] })
    expect(await execArgvOf(script)).toEqual(['--max-semi-space-size=1', '--stack-size=900'])
  })

  it('gives no options when its package lists none, and keeps the arguments after the bin', async () => {
    const script = bin({})
    expect(await execArgvOf(script)).toEqual([])
    expect(nodeArgs(script, ['--config', 'x.json'])).toEqual([script, '--config', 'x.json'])
  })

  it('refuses a listed entry that is not a Node option, naming the package.json', () => {
    const script = bin({ e2eColNodeOptions: ['--inspect', 'rm -rf /'] })
    expect(() => nodeArgs(script, [])).toThrow(/package\.json: e2eColNodeOptions must list Node options/)
  })

  it('runs the sidecar with a small young generation, the memory docs/performance.md §13 measures', () => {
    const sidecar = binOf('@e2e-col/sidecar', 'e2e-col-sidecar')
    expect(nodeArgs(sidecar, ['--help'])).toEqual(['--max-semi-space-size=1', sidecar, '--help'])
  })
})
