// The `toy-signal` binary: runs without a build step, prints its URL first, masks numbers.
import { execFile, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const BIN = fileURLToPath(new URL('../bin/toy-signal.js', import.meta.url))

describe('toy-signal binary', () => {
  it('prints its URL, mode, masked accounts and group ids, then serves', async () => {
    const child = spawn(process.execPath, [
      BIN,
      '--http',
      '127.0.0.1:0',
      '--account',
      '+15550000001',
      '--group',
      'team:+15550000001,+15550000002',
    ])
    try {
      let out = ''
      const lines = await new Promise<string[]>((resolve, reject) => {
        child.on('exit', (code) => reject(new Error(`exited ${code}`)))
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString()
          if (out.includes('group "team"')) resolve(out.split('\n'))
        })
      })
      const url = /^toy-signal listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0] ?? '')?.[1]
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(out).not.toContain('+15550000001')
      expect(out).toMatch(/group "team" id [A-Za-z0-9+/]{43}=/)
      expect((await fetch(`${url}/api/v1/check`)).status).toBe(200)
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('exits 2 with a TOY_CONFIG_INVALID line on a bad flag', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, '--account', 'not-a-number'], (error, _stdout, stderr) =>
        resolve({ code: error?.code === undefined ? 0 : Number(error.code), stderr }),
      )
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('TOY_CONFIG_INVALID')
  })

  it('prints every flag for --help and exits 0 without listening', async () => {
    const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, [BIN, '--help'], (error, stdout) =>
        resolve({ code: error?.code === undefined ? 0 : Number(error.code), stdout }),
      )
    })
    expect(result.code).toBe(0)
    for (const flag of [
      '--http',
      '--account',
      '--group',
      '--unregistered',
      '--single-account',
      '--config',
      '--faults',
      '--keep-alive-ms',
      '--verbose',
    ]) {
      expect(result.stdout).toContain(flag)
    }
    expect(result.stdout).not.toContain('listening on')
  })
})
