import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadChatState, saveChatState, stateDir, type ChatState } from './chat-state.ts'
import { lockSession, lockSessionWhenFree } from './session-lock.ts'

const root = mkdtempSync(join(tmpdir(), 'e2e-col-state-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const state: ChatState = {
  version: 1,
  groupId: 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI=',
  groupName: 'e2e-col-h-t',
  sessionId: '6f1c1b7e-2a43-4c3e-9a55-0d1b2c3d4e5f',
  agent: 'copilot',
  topic: 't',
  account: '+15550000001',
  turns: 2,
  sessionStarted: true,
  createdAt: '2026-01-01T00:00:00.000Z',
}

describe('chat state file', () => {
  it('lives under XDG_STATE_HOME, else ~/.local/state', () => {
    expect(stateDir({ XDG_STATE_HOME: '/x/state', HOME: '/home/u' })).toBe('/x/state/e2e-col')
    expect(stateDir({ HOME: '/home/u' })).toBe('/home/u/.local/state/e2e-col')
    expect(stateDir({ XDG_STATE_HOME: 'relative', HOME: '/home/u' })).toBe('/home/u/.local/state/e2e-col')
  })
  it('round-trips, readable by its owner only', () => {
    saveChatState(root, state)
    expect(loadChatState(root, state.groupId)).toEqual(state)
    expect(statSync(join(root, 'chats')).mode & 0o777).toBe(0o700)
  })
  it('refuses an unknown group and a corrupt file with CHAT_STATE', () => {
    expect(() => loadChatState(root, 'bm9wZQ==')).toThrow(expect.objectContaining({ code: 'CHAT_STATE' }))
  })
})

describe('session lock', () => {
  it('refuses a second holder in this process and frees on release', () => {
    const lock = lockSession(root, state.sessionId)
    expect(() => lockSession(root, state.sessionId)).toThrow(expect.objectContaining({ code: 'CHAT_LOCKED' }))
    lock.release()
    lockSession(root, state.sessionId).release()
  })
  it('refuses while another live process holds it, and takes over a dead owner’s lock', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e5)'], { stdio: 'ignore' })
    const path = join(root, 'chats', 'other-session.lock')
    writeFileSync(path, `${child.pid}\n`)
    expect(() => lockSession(root, 'other-session')).toThrow(expect.objectContaining({ code: 'CHAT_LOCKED' }))
    const exited = new Promise((r) => child.once('exit', r))
    child.kill()
    await exited
    const lock = lockSession(root, 'other-session')
    lock.release()
  })
  it('waits, bounded, for another live process to release it, and refuses once the wait is over', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e5)'], { stdio: 'ignore' })
    const exited = new Promise((r) => child.once('exit', r))
    const path = join(root, 'chats', 'handover.lock')
    writeFileSync(path, `${child.pid}\n`)
    const said: string[] = []
    const log = (line: string) => void said.push(line)
    const started = Date.now()
    await expect(lockSessionWhenFree(root, 'handover', { waitMs: 200, log })).rejects.toMatchObject({
      code: 'CHAT_LOCKED',
    })
    expect(Date.now() - started).toBeGreaterThanOrEqual(200)
    expect(said).toEqual([
      `another e2e-col chat (pid ${child.pid}) is running this agent session; waiting up to 200 ms for it to end`,
    ])
    // The owner ends while the next start waits: the start takes the lock.
    const taking = lockSessionWhenFree(root, 'handover', { waitMs: 10_000, log })
    setTimeout(() => child.kill(), 100)
    const lock = await taking
    await exited
    expect(said).toHaveLength(2)
    lock.release()
  })
  it('refuses at once a holder in this process, which cannot end while it waits', async () => {
    const lock = lockSession(root, 'held-here')
    const started = Date.now()
    await expect(lockSessionWhenFree(root, 'held-here', { waitMs: 5000, log: () => {} })).rejects.toMatchObject({
      code: 'CHAT_LOCKED',
    })
    expect(Date.now() - started).toBeLessThan(1000)
    lock.release()
  })
})
