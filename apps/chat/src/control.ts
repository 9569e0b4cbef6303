/** What an accepted message asks for. */
export type ControlAction =
  | { kind: 'status' }
  | { kind: 'cancel' }
  | { kind: 'stop'; phrase: 'stop' | 'kill' }
  /** The saved output of turn `turn` (the latest one saved when absent), sent as a file. */
  | { kind: 'output'; turn: number | undefined }
  | { kind: 'prompt'; text: string }

/**
 * Control phrases are the whole message, trimmed, case-insensitive: `status`, `cancel`, `stop`,
 * `kill`, `output` and `output <turn>`. Anything else, even "please stop the review", is a prompt
 * and goes to the agent verbatim.
 */
export function parseControl(text: string): ControlAction {
  const phrase = text.trim().toLowerCase()
  if (phrase === 'status') return { kind: 'status' }
  if (phrase === 'cancel') return { kind: 'cancel' }
  if (phrase === 'stop' || phrase === 'kill') return { kind: 'stop', phrase }
  const output = /^output(?:\s+(\d{1,9}))?$/.exec(phrase)
  if (output !== null) return { kind: 'output', turn: output[1] === undefined ? undefined : Number(output[1]) }
  return { kind: 'prompt', text }
}

/** The phrases as listed in the announcement and `--help`. */
export const CONTROL_PHRASES_HELP =
  'status (what is running), cancel (kill the running turn or stop the rest of its reply, keep chatting), output [turn] (the saved output of a reply too long to post, as a file), stop or kill (kill the running turn, leave the group, end)'
