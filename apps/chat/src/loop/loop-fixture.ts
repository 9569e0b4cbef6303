/** For the loop's unit tests: a chat's state as setup leaves it, and an audit log that keeps its entries. */
import type { AuditEntry, AuditLog } from '../state/audit-log.ts'
import type { ChatState } from '../state/chat-state.ts'

export const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
/** An env value the tests' redactors know, so a leak shows as this text. */
export const SECRET = 'zz-known-env-secret-value-31337'

/** A `command` chat's state in group `GROUP`; `over` sets the counters a test starts from. */
export function chatState(over: Partial<ChatState> = {}): ChatState {
  return {
    version: 1,
    groupId: GROUP,
    groupName: 'g',
    sessionId: '00000000-0000-4000-8000-000000000001',
    agent: 'command',
    topic: 't',
    account: '+15550000001',
    turns: 0,
    sessionStarted: false,
    createdAt: 'now',
    ...over,
  }
}

/** An audit log that records into `entries`. */
export function recordingAudit(): { log: AuditLog; entries: AuditEntry[] } {
  const entries: AuditEntry[] = []
  return { log: { path: 'audit', record: async (e) => void entries.push(e) }, entries }
}
