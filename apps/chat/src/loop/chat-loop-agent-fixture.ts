/**
 * The agent of the chat loop's tests, in place of `agent/turn-runner.ts` (each test file mocks that
 * module with this one): it records each prompt and answers `answer to <prompt>` at once. A prompt
 * starting "hold" runs until it is cancelled, and then ends as a killed agent reports it.
 */
import type { RunTurnOptions, TurnResult } from '../agent/turn-runner.ts'

/** The prompts the agent was run with, in order (tests empty it between cases). */
export const agent = { prompts: [] as string[] }

export async function runTurn(options: RunTurnOptions): Promise<TurnResult> {
  const prompt = options.argv.at(-1) ?? ''
  agent.prompts.push(prompt)
  const cancelled =
    prompt.startsWith('hold') &&
    (await new Promise<boolean>((resolve) => options.signal?.addEventListener('abort', () => resolve(true))))
  return {
    outcome: cancelled ? 'cancelled' : 'ok',
    exitCode: 0,
    signal: null,
    stdout: `answer to ${prompt}`,
    droppedStdoutBytes: 0,
    unkeptBytes: 0,
    outputBytes: 10,
    tail: '',
    durationMs: 5,
  }
}
