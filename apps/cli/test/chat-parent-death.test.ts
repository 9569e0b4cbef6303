/**
 * `e2e-col chat` killed with SIGKILL, as a person or a service manager may: the chat it runs, the
 * agent's turn and what the agent started all end, the session lock is released, and the next
 * `--resume` runs at once. The real bins against the toy over HTTP, with the fake agent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { binEnv, chatArgv, isAlive, until, useWorld, type World } from '@e2e-col/chat/testing'
import { describe, expect, it } from 'vitest'
import { runCli } from './cli-process.ts'

const worlds = useWorld()

/** The pids in the session lock files of `world` (the chat processes holding a session). */
function lockHolders(world: World): number[] {
  const dir = join(world.stateRoot, 'e2e-col', 'chats')
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => name.endsWith('.lock'))
    .map((name) => Number(readFileSync(join(dir, name), 'utf8').trim()))
}

describe('e2e-col chat killed with SIGKILL', () => {
  it('leaves no chat, agent, grandchild or lock behind, and --resume works at once', async () => {
    const world = await worlds.world()
    const pidFile = join(world.stateRoot, 'grandchild.pid')
    const env = binEnv(world, pidFile)
    const first = runCli(chatArgv('grandchild'), env)
    // The bin ignores SIGINT while a chat runs; a failed test ends both runs the way this test checks.
    worlds.defer(() => void first.child.kill('SIGKILL'))
    const groupId = (await first.waitFor(/\(id ([^)]+)\)/, 'the chat group', 60_000))[1] as string
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 30_000, 'the agent grandchild')
    const grandchild = Number(readFileSync(pidFile, 'utf8'))
    const agent = (world.agentRuns()[0] as unknown as { pid: number }).pid
    const [chat] = lockHolders(world)
    if (chat === undefined) throw new Error('no session lock while the chat runs')
    worlds.defer(() => {
      for (const pid of [chat, grandchild]) if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    })
    expect(chat).not.toBe(first.child.pid)
    expect([isAlive(chat), isAlive(agent), isAlive(grandchild)]).toEqual([true, true, true])

    first.child.kill('SIGKILL')
    await first.exited
    const second = runCli(chatArgv(undefined, ['--resume', groupId]), env)
    worlds.defer(() => void second.child.kill('SIGKILL'))
    await until(
      () => !isAlive(chat) && !isAlive(agent) && !isAlive(grandchild),
      10_000,
      'the chat, its agent and the grandchild to end',
    )
    expect(first.output()).toContain('the e2e-col process that started this chat is gone')

    // The resumed chat takes prompts: the earlier chat ended its own turn (no leftover to sweep).
    await until(() => lockHolders(world).length === 1 && !lockHolders(world).includes(chat), 30_000, 'the new lock')
    await world.say(groupId, 'after the restart')
    await second.waitFor(/turn 2 ok/, 'the resumed chat to run a turn', 60_000)
    // Neither refused nor kept waiting by the earlier chat's lock.
    expect(second.output()).not.toContain('another e2e-col chat')
    expect(second.output()).not.toContain('was still running and is killed now')

    second.child.kill('SIGTERM')
    expect(await second.exited).toBe(0)
    expect(lockHolders(world)).toEqual([])
  }, 120_000)
})
