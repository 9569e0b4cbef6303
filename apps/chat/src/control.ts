/** What an accepted message asks for. */
export type ControlAction =
  | { kind: 'status' }
  | { kind: 'cancel' }
  | { kind: 'stop'; phrase: 'stop' | 'kill' }
  | { kind: 'prompt'; text: string }

/**
 * Control phrases are the whole message, trimmed, case-insensitive: `status`, `cancel`, `stop`,
 * `kill`. Anything else, even "please stop the review", is a prompt and goes to the agent verbatim.
 */
export function parseControl(text: string): ControlAction {
  const phrase = text.trim().toLowerCase()
  if (phrase === 'status') return { kind: 'status' }
  if (phrase === 'cancel') return { kind: 'cancel' }
  if (phrase === 'stop' || phrase === 'kill') return { kind: 'stop', phrase }
  return { kind: 'prompt', text }
}

/** The phrases as listed in the announcement and `--help`. */
export const CONTROL_PHRASES_HELP =
  'status (what is running), cancel (kill the running turn or stop the rest of its reply, keep chatting), stop or kill (kill the running turn, leave the group, end)'
