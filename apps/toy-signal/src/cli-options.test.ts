import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { parseCliOptions } from './cli-options.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function configFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'toy-signal-cli-'))
  dirs.push(dir)
  const path = join(dir, 'toy.json')
  writeFileSync(path, JSON.stringify(content))
  return path
}

describe('parseCliOptions', () => {
  it('defaults to 127.0.0.1:8080 with no accounts, like an empty real daemon', () => {
    expect(parseCliOptions([])).toEqual({
      toy: { host: '127.0.0.1', port: 8080, accounts: [], groups: [], faults: false },
      verbose: false,
    })
  })

  it('passes --groups-file on to the toy', () => {
    expect(parseCliOptions(['--groups-file', '/var/toy/groups.json']).toy.groupsFile).toBe('/var/toy/groups.json')
    expect(parseCliOptions([]).toy.groupsFile).toBeUndefined()
  })

  it('reads repeated --unregistered numbers and the config key, and rejects a malformed one', () => {
    const path = configFile({ unregistered: ['+15550000003'] })
    expect(parseCliOptions(['--config', path, '--unregistered', '+15550000004']).toy.unregistered).toEqual([
      '+15550000003',
      '+15550000004',
    ])
    expect(() => parseCliOptions(['--unregistered', '555'])).toThrow(
      expect.objectContaining({ code: 'TOY_CONFIG_INVALID' }),
    )
  })

  it('reads repeated accounts and groups and splits --http at the last colon', () => {
    const { toy } = parseCliOptions([
      '--http',
      '[::1]:0',
      '--account',
      '+15550000001',
      '--account',
      '+15550000002',
      '--group',
      'team:one:+15550000001,+15550000002',
      '--faults',
      '--keep-alive-ms',
      '250',
    ])
    expect(toy).toMatchObject({
      host: '::1',
      port: 0,
      accounts: ['+15550000001', '+15550000002'],
      faults: true,
      keepAliveMs: 250,
    })
    expect(toy.groups).toEqual([{ name: 'team:one', members: ['+15550000001', '+15550000002'] }])
  })

  it('merges a JSON config file with the flags', () => {
    const path = configFile({
      accounts: ['+15550000001'],
      groups: [{ name: 'g', members: ['+15550000001'] }],
      maxQueuedPerAccount: 5,
    })
    const { toy } = parseCliOptions(['--config', path, '--account', '+15550000002'])
    expect(toy.accounts).toEqual(['+15550000001', '+15550000002'])
    expect(toy.maxQueuedPerAccount).toBe(5)
    expect(toy.groups).toEqual([{ name: 'g', members: ['+15550000001'] }])
  })

  it('rejects bad input with TOY_CONFIG_INVALID', () => {
    const bad = [
      ['--account', '12345'],
      ['--http', 'host:99999'],
      ['--group', 'nomembers'],
      ['--keep-alive-ms', '0'],
      ['--unknown'],
      ['--config', configFile({ accounts: 'x' })],
      ['--config', '/nonexistent/toy.json'],
      ['--single-account', 'x'],
    ]
    for (const args of bad)
      expect(() => parseCliOptions(args), args.join(' ')).toThrow(
        expect.objectContaining({ code: 'TOY_CONFIG_INVALID' }),
      )
  })
})
