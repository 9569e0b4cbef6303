import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { PARENT_PIPE_ENV, takeParentPipe, watchParentPipe } from './parent-pipe.ts'

const WATCHER = `
  const { watchParentPipe } = await import(${JSON.stringify(new URL('./parent-pipe.ts', import.meta.url).href)})
  watchParentPipe(3, () => { console.log('parent gone'); process.exit(0) })
  console.log('watching')
  setInterval(() => {}, 1e5)
`

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the watcher to start')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('the parent pipe', () => {
  it('takes the descriptor once and removes its name from the environment', () => {
    const env: NodeJS.ProcessEnv = { [PARENT_PIPE_ENV]: '3', PATH: '/bin' }
    expect(takeParentPipe(env)).toBe(3)
    expect(env).toEqual({ PATH: '/bin' })
    expect(takeParentPipe(env)).toBeUndefined()
  })
  it('refuses a value that is no descriptor above stderr', () => {
    for (const bad of ['2', '-1', 'three', '3.5', '', '99999'])
      expect(() => takeParentPipe({ [PARENT_PIPE_ENV]: bad })).toThrow(
        expect.objectContaining({ code: 'CHAT_USAGE' }) as Error,
      )
  })
  it('refuses a descriptor that is no pipe with a usage error', () => {
    expect(() => watchParentPipe(987, () => {})).toThrow(expect.objectContaining({ code: 'CHAT_USAGE' }) as Error)
  })
  it('tells the child when its parent closes the write end, and not before', async () => {
    const node = ['--conditions=@e2e-col/source', '--import', 'tsx', '--input-type=module', '-e', WATCHER]
    const child = spawn(process.execPath, node, {
      stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    })
    let out = ''
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    await until(() => out === 'watching\n' || child.exitCode !== null)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(child.exitCode).toBeNull()
    child.stdio[3]?.destroy()
    expect(await exited).toBe(0)
    expect(out).toBe('watching\nparent gone\n')
  })
})
