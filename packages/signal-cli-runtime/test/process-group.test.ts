// A child in its own process group, with real processes: its lines and output tail, a stop that
// takes what it started along, SIGKILL for one that ignores SIGTERM, and a command that is not there.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { spawnInGroup, type GroupChild } from '../src/index.ts'

const started: GroupChild[] = []
afterEach(async () => {
  for (const child of started.splice(0)) await child.stop(100)
})

function node(script: string, onLine?: (line: string) => void): GroupChild {
  const child = spawnInGroup(process.execPath, ['-e', script], { env: process.env, onLine })
  started.push(child)
  return child
}

/** Running, not gone and not a zombie waiting to be reaped (Linux /proc). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited 20 s for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('spawnInGroup', () => {
  it('hands over each line whole, even split across writes, and keeps the last 4,000 characters', async () => {
    const lines: string[] = []
    const child = node(
      "process.stdout.write('one\\ntw'); setTimeout(() => { process.stdout.write('o\\n'); process.stderr.write('x'.repeat(5000) + '\\nlast\\n') }, 50)",
      (line) => lines.push(line),
    )
    expect(await child.exited).toEqual({ code: 0, signal: null })
    expect(child.gone).toBe(true)
    expect(lines.slice(0, 2)).toEqual(['one', 'two'])
    expect(lines.at(-1)).toBe('last')
    expect(child.output()).toHaveLength(4000)
    expect(child.output().endsWith('x\nlast\n')).toBe(true)
  })

  it('stops the whole group: what the leader started goes too', async () => {
    const child = node(
      "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000)",
    )
    await until('the grandchild pid', () => /^\d+\n/.test(child.output()))
    const grandchild = Number(child.output().trim())
    expect(alive(grandchild)).toBe(true)
    await child.stop(5_000)
    expect(child.gone).toBe(true)
    await until('the grandchild gone', () => !alive(grandchild))
  })

  it('kills a leader that ignores SIGTERM once the grace period is over', async () => {
    const child = node("process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)")
    await until('the leader ready', () => child.output().includes('ready'))
    await child.stop(200)
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' })
  })

  it("ends the groups of a parent killed with SIGKILL (its 'exit' handlers never run): SIGTERM, then SIGKILL for one that ignores it", async () => {
    const parent = spawn(
      process.execPath,
      [
        '--conditions=@e2e-col/source',
        '--import',
        'tsx',
        fileURLToPath(new URL('./orphan-parent.ts', import.meta.url)),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    onTestFinished(() => void parent.kill('SIGKILL'))
    let out = ''
    parent.stdout.on('data', (d: Buffer) => (out += d.toString()))
    await until('the children started', () => /^\d+ \d+\n/.test(out))
    const [polite, stubborn] = out.trim().split(' ').map(Number) as [number, number]
    expect([alive(polite), alive(stubborn)]).toEqual([true, true])
    parent.kill('SIGKILL')
    await until('the child that stops on SIGTERM gone', () => !alive(polite))
    await until('the child that ignores SIGTERM gone', () => !alive(stubborn))
  }, 60_000)

  it('resolves `exited` with the spawn error when the command is not there', async () => {
    const child = spawnInGroup('/nonexistent/e2e-col-no-such-command', [], { env: process.env })
    const exit = await child.exited
    expect(exit.spawnError?.message).toMatch(/ENOENT/)
    expect(exit.code).toBeNull()
    expect(child.gone).toBe(true)
    expect(child.output()).toMatch(/ENOENT/)
    await child.stop(100) // a child that never started stops at once
  })
})
