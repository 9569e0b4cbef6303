// A chat killed with SIGKILL: the parent-death guard takes the agent down with it, and the next
// start kills what the agent left running (its process group, recorded in the chat's state).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findSetpriv } from '../src/agent/parent-death.ts'
import { listChatStates, saveChatState } from '../src/state/chat-state.ts'
import { processStartTicks, sweepLeftoverTurns } from '../src/state/leftover-turn.ts'
import { binEnv, chatArgv, isAlive, resumeIn, stopsCleanly, until, useWorld, type World } from './harness.ts'

const BIN = fileURLToPath(new URL('../bin/e2e-col-chat.js', import.meta.url))
const worlds = useWorld()
/** Kills the process group `pid` leads after the test, before its world closes. */
const reap = (pid: number) =>
  worlds.defer(() => {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // gone
    }
  })

const root = (w: World) => join(w.stateRoot, 'e2e-col')

describe('a chat killed with SIGKILL', () => {
  it('takes its agent down (parent-death guard), and the next --resume kills what the agent left and says so', async () => {
    const world = await worlds.world()
    const pidFile = join(world.stateRoot, 'grandchild.pid')
    const child = spawn(process.execPath, [BIN, ...chatArgv('grandchild')], {
      env: { ...process.env, ...binEnv(world, pidFile) },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    await until(
      () => {
        try {
          return Number(readFileSync(pidFile, 'utf8')) > 0
        } catch {
          return false
        }
      },
      30_000,
      'the agent of the chat process to start its grandchild',
    )
    const grandchild = Number(readFileSync(pidFile, 'utf8'))
    const agent = (world.agentRuns()[0] as unknown as { pid: number }).pid
    reap(agent)
    const groupId = /\(id ([^)]+)\)/.exec(stderr)?.[1] as string
    await until(
      () => listChatStates(root(world))[0]?.runningTurn !== undefined,
      10_000,
      'the running turn in the state file',
    )
    expect(listChatStates(root(world))[0]?.runningTurn).toMatchObject({ turn: 1, pgid: agent, loopPid: child.pid })

    child.kill('SIGKILL')
    await exited
    if (findSetpriv(process.env) === undefined)
      console.log('setpriv not on PATH: the parent-death guard is not checked here')
    else await until(() => !isAlive(agent), 10_000, 'the agent to die with its parent')
    // The grandchild is out of the guard's reach: it lives on until the next start.
    expect(isAlive(grandchild)).toBe(true)

    const chat = resumeIn(world, groupId)
    await chat.ready
    expect(isAlive(grandchild)).toBe(false)
    expect(chat.logs).toContain(`turn 1 of an earlier run (process group ${agent}) was still running and is killed now`)
    const hello = await chat.events.next('posted')
    expect(hello.text).toContain('turn 1 was left running by an earlier e2e-col process that died; it is killed now.')
    expect(listChatStates(root(world))[0]?.runningTurn).toBeUndefined()
    await stopsCleanly(chat)
  })
})

describe('the startup sweep', () => {
  it("leaves alone a process group whose id is now another program's, and a turn whose loop still runs", async () => {
    const { world, chat, groupId } = await worlds.chat('echo topic')
    await chat.turnEnded(1)
    await stopsCleanly(chat)
    const stranger = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], {
      detached: true,
      stdio: 'ignore',
    })
    const pid = stranger.pid as number
    reap(pid)
    const state = listChatStates(root(world)).find((s) => s.groupId === groupId)
    if (state === undefined) throw new Error('no state')
    // Recorded with another start time: the id was reused by an unrelated program.
    saveChatState(root(world), {
      ...state,
      runningTurn: { turn: 1, pgid: pid, loopPid: 999_999_999, leaderStart: (processStartTicks(pid) ?? 0) + 1 },
    })
    expect(await sweepLeftoverTurns(root(world), { graceMs: 200 })).toEqual([
      { groupId, turn: 1, pgid: pid, result: 'not-ours' },
    ])
    expect(isAlive(pid)).toBe(true)
    // A live loop holding the session lock keeps its turn.
    const { lockSession } = await import('../src/state/session-lock.ts')
    const lock = lockSession(root(world), state.sessionId)
    saveChatState(root(world), {
      ...state,
      runningTurn: { turn: 1, pgid: pid, loopPid: process.pid, leaderStart: processStartTicks(pid) as number },
    })
    try {
      expect(await sweepLeftoverTurns(root(world), { graceMs: 200 })).toEqual([])
    } finally {
      lock.release()
    }
    expect(isAlive(pid)).toBe(true)
  })
})
