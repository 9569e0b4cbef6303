/**
 * Leftover turns: a chat records its running turn's process group in its state file; if the loop
 * dies without reaping it (SIGKILL, a crash, the machine's OOM killer), the agent and its tools
 * keep running, reparented to PID 1. At the next start the sweep finds such records, checks the
 * group is still the one we started (Linux /proc: the leader's start time, or a group whose leader
 * is gone, whose id the kernel cannot have reused while it has members), kills it (SIGTERM, SIGKILL
 * after the grace period) and clears the record. Without /proc nothing can be verified and nothing
 * is signalled.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chatsDir, listChatStates, saveChatState } from './chat-state.ts'

/** What the sweep did with one recorded turn. */
export interface LeftoverTurn {
  groupId: string
  turn: number
  pgid: number
  /** `killed`: members were running and are gone now; `gone`: nothing was left; `not-ours`: the id was reused. */
  result: 'killed' | 'still-running' | 'gone' | 'not-ours' | 'unverifiable'
}

interface ProcEntry {
  pid: number
  pgid: number
  state: string
  start: number
}

function readProc(pid: string): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    // Fields after the command name: state is field 3, pgrp field 5, starttime field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { pid: Number(pid), state: fields[0] ?? '?', pgid: Number(fields[2]), start: Number(fields[19]) }
  } catch {
    return undefined
  }
}

/** The start time of `pid` in clock ticks since boot, when /proc has it. */
export function processStartTicks(pid: number): number | undefined {
  return readProc(String(pid))?.start
}

function hasProc(): boolean {
  try {
    readdirSync('/proc')
    return readProc('self') !== undefined
  } catch {
    return false
  }
}

/** Running (not zombie) members of process group `pgid`. */
function membersOf(pgid: number): ProcEntry[] {
  const out: ProcEntry[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const entry = readProc(name)
    if (entry !== undefined && entry.pgid === pgid && entry.state !== 'Z' && entry.state !== 'X') out.push(entry)
  }
  return out
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** True when the session lock of `sessionId` is held by the live process `pid`. */
function lockHeldBy(root: string, sessionId: string, pid: number): boolean {
  try {
    return Number(readFileSync(join(chatsDir(root), `${sessionId}.lock`), 'utf8').trim()) === pid && alive(pid)
  } catch {
    return false
  }
}

async function waitEmpty(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  for (;;) {
    if (membersOf(pgid).length === 0) return true
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 40))
  }
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig)
  } catch {
    // gone between the check and the signal
  }
}

/**
 * Finds every chat under `root` whose recorded turn belongs to a loop that is no longer running,
 * kills what is left of it and clears the record. Chats of live loops are left alone.
 */
export async function sweepLeftoverTurns(root: string, options: { graceMs: number }): Promise<LeftoverTurn[]> {
  const found: LeftoverTurn[] = []
  const proc = hasProc()
  for (const state of listChatStates(root)) {
    const rec = state.runningTurn
    if (rec === undefined) continue
    if (lockHeldBy(root, state.sessionId, rec.loopPid)) continue
    const base = { groupId: state.groupId, turn: rec.turn, pgid: rec.pgid }
    if (!proc) {
      found.push({ ...base, result: 'unverifiable' })
      continue
    }
    const members = membersOf(rec.pgid)
    const leader = members.find((m) => m.pid === rec.pgid) ?? readProc(String(rec.pgid))
    let result: LeftoverTurn['result']
    if (members.length === 0) result = 'gone'
    else if (
      leader !== undefined &&
      leader.pgid === rec.pgid &&
      (rec.leaderStart === undefined || leader.start !== rec.leaderStart)
    )
      result = 'not-ours'
    else if (leader !== undefined && leader.pgid !== rec.pgid) result = 'not-ours'
    else {
      signalGroup(rec.pgid, 'SIGTERM')
      if (!(await waitEmpty(rec.pgid, options.graceMs))) {
        signalGroup(rec.pgid, 'SIGKILL')
        await waitEmpty(rec.pgid, 2000)
      }
      result = membersOf(rec.pgid).length === 0 ? 'killed' : 'still-running'
    }
    found.push({ ...base, result })
    if (result !== 'still-running') {
      delete state.runningTurn
      saveChatState(root, state)
    }
  }
  return found
}
