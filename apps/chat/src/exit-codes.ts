/**
 * Process exit codes of `e2e-col chat`: one per failure class, so a wrapper script (or a human)
 * can tell "the operator said stop" from "the daemon went away" without reading logs.
 */
export const EXIT_CODES = {
  ok: 0,
  setup: 1,
  remoteEndpointRefused: 2,
  groupSetupFailed: 3,
  daemonLost: 4,
  agentCannotResume: 5,
} as const

/** A name of {@link EXIT_CODES}. */
export type ExitCodeName = keyof typeof EXIT_CODES
/** One of the numeric exit codes. */
export type ExitCode = (typeof EXIT_CODES)[ExitCodeName]

/** The exit code table as printed by `--help` and documented in docs/chat.md. */
export const EXIT_CODE_TABLE: ReadonlyArray<{ code: ExitCode; meaning: string }> = [
  { code: 0, meaning: 'clean stop (an operator sent stop or kill, or SIGINT/SIGTERM)' },
  {
    code: 1,
    meaning: 'setup, usage, account not linked, state/lock problem, announcement not posted in time, or internal error',
  },
  { code: 2, meaning: 'non-loopback signal-cli endpoint refused (see --unsafe-remote-endpoint)' },
  { code: 3, meaning: 'group creation or message-request acceptance failed (a group just created is left)' },
  { code: 4, meaning: 'signal-cli daemon not restored within --retry-budget attempts' },
  { code: 5, meaning: 'the agent cannot resume a pinned session id (or was not found)' },
]
