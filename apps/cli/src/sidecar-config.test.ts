import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CliError } from './errors.ts'
import { readConfigFile, sidecarSettings, writeConfigFile } from './sidecar-config.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'e2e-col-config-'))
  dirs.push(d)
  return d
}

describe('the config file', () => {
  it('is written whole with mode 0600, replacing an older one, with no temporary file left', () => {
    const d = dir()
    const path = join(d, 'config.json')
    writeFileSync(path, '{"old":true}', { mode: 0o644 })
    const settings = sidecarSettings({
      daemonUrl: 'http://127.0.0.1:1234',
      account: '+15551234567',
      setup: 'dedicated-number',
      dataDir: '/s',
    })
    writeConfigFile(path, settings)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(settings)
    expect(readdirSync(d)).toEqual(['config.json'])
    expect(readConfigFile(path, 'e2e-col setup')).toEqual(settings)
  })

  it('names no fixed document (documents are made on the home page) and says which account kind it is', () => {
    const base = { daemonUrl: 'http://127.0.0.1:1234', account: '+15551234567', dataDir: '/s' }
    const linked = sidecarSettings({ ...base, setup: 'linked-device' })
    expect(linked).not.toHaveProperty('E2E_COL_DOCUMENTS')
    expect(linked).toMatchObject({ SIGNAL_CLI_ACCOUNT: '+15551234567', E2E_COL_SETUP: 'linked-device' })
    expect(sidecarSettings({ ...base, setup: 'dedicated-number' })['E2E_COL_SETUP']).toBe('dedicated-number')
  })

  it('says to run setup when it is missing, and names a broken one', () => {
    const d = dir()
    const missing = (() => {
      try {
        readConfigFile(join(d, 'config.json'), 'npx e2e-col setup --link')
      } catch (e) {
        return e
      }
    })() as CliError
    expect(missing.code).toBe('CLI_NOT_SET_UP')
    expect(missing.hint).toContain('npx e2e-col setup --link')
    writeFileSync(join(d, 'config.json'), '[1,2')
    expect(() => readConfigFile(join(d, 'config.json'), 'x')).toThrow(/is not a JSON object of settings/)
  })
})
