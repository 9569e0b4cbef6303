/**
 * A document turn ("in 'Trip plan': shorten day 2"): the agent gets the document's text and the
 * answer format instead of the raw prompt, and its answer becomes suggestions on the sidecar, not
 * a reply. The group gets a short report of what was suggested. Any other prompt is a plain turn.
 */
import type { TurnResult } from '../agent/turn-runner.ts'
import { asChatError } from '../errors.ts'
import type { Redactor } from '../redact/redactor.ts'
import { buildDocPrompt, parseDocAnswer, parseDocPrompt, type DocChange } from '../review/doc-prompt.ts'
import type { DocReview, OpenedDoc, SuggestOutcome } from '../review/sidecar-review.ts'
import { reportTurn, type TurnReport } from './turn-report.ts'

/** What `runOne` does with a prompt. */
export type TurnPlan =
  /** Run the agent on `agentPrompt`; `report` turns its result into what the group is told. */
  | { kind: 'agent'; agentPrompt: string; report(result: TurnResult, turn: number): Promise<TurnReport> }
  /** Answer at once without the agent (a document prompt this chat cannot carry out). */
  | { kind: 'answer'; report: TurnReport }

export interface DocTurnOptions {
  /** The sidecar's review API; undefined without --sidecar and --agent-token. */
  review: DocReview | undefined
  redactor: Redactor
  turnTimeoutMs: number | undefined
  host: string
}

/** What a document prompt is answered when the chat was started without what it needs. */
export const NO_DOC_ACCESS =
  'This chat cannot edit documents: start it with --sidecar ws://127.0.0.1:7600 and --agent-token (mint one with `e2e-col agent token --doc <title>`).'

const quoted = (s: string, max = 60): string => `“${s.length > max ? `${s.slice(0, max - 1)}…` : s}”`

/** One line per change that was not suggested. */
function refusalLine(change: DocChange, outcome: SuggestOutcome): string | undefined {
  if (outcome.kind === 'made') return undefined
  if (outcome.kind === 'stale') return `${quoted(change.find)} was not found once in the text; not suggested.`
  return `${quoted(change.find)} was refused by the sidecar (${outcome.reason}); not suggested.`
}

/** The group's report of one document turn (redacted by the caller). */
export function docReportText(
  doc: Pick<OpenedDoc, 'title'>,
  changes: readonly DocChange[],
  outcomes: readonly SuggestOutcome[],
  skipped: number,
): string {
  const made = outcomes.filter((o) => o.kind === 'made').length
  const head =
    made === 0
      ? `No change suggested in ${quoted(doc.title)}.`
      : `Suggested ${made} change${made === 1 ? '' : 's'} in ${quoted(doc.title)}; approve them on your phone (Note to Self) or on the page.`
  const lines = changes.flatMap((c, i) => {
    const outcome = outcomes[i]
    const line = outcome === undefined ? undefined : refusalLine(c, outcome)
    return line === undefined ? [] : [line]
  })
  const rest = skipped === 0 ? [] : [`${skipped} more block(s) of the answer were unusable or over the limit; skipped.`]
  return [head, ...lines, ...rest].join('\n')
}

/** Suggests each change in turn (one at a time: each is checked against the same base). */
async function suggestAll(
  review: DocReview,
  doc: OpenedDoc,
  changes: readonly DocChange[],
  signal: AbortSignal,
): Promise<SuggestOutcome[]> {
  const outcomes: SuggestOutcome[] = []
  for (const change of changes) outcomes.push(await review.suggest(doc, change, signal))
  return outcomes
}

/** What the group is told of a document turn that could not be carried out. */
async function failed(o: DocTurnOptions, err: unknown, signal: AbortSignal): Promise<TurnReport> {
  // The operator's cancel (or the chat's end) stopped a call to the sidecar.
  if (signal.aborted) return { receipt: 'cancelled', text: 'document turn cancelled; the chat goes on.' }
  const known = asChatError(err)
  if (known?.code !== 'CHAT_DOC_ANSWER' && known?.code !== 'CHAT_DOC_UNAVAILABLE') throw err
  return { receipt: 'failed', text: await o.redactor.redact(`No change suggested: ${known.message}.`) }
}

/** The report of a document turn whose agent ran: its answer made into suggestions. */
async function reportDocTurn(
  o: DocTurnOptions & { review: DocReview },
  doc: OpenedDoc,
  result: TurnResult,
  turn: number,
  signal: AbortSignal,
): Promise<TurnReport> {
  if (result.outcome !== 'ok' || result.droppedStdoutBytes > 0)
    return result.outcome === 'ok'
      ? { receipt: 'failed', text: 'No change suggested: the agent’s answer was too long to read.' }
      : reportTurn(result, turn, o.redactor, o.turnTimeoutMs, o.host)
  try {
    const answer = parseDocAnswer(result.stdout)
    const outcomes = await suggestAll(o.review, doc, answer.changes, signal)
    const text = docReportText(doc, answer.changes, outcomes, answer.dropped + answer.malformed)
    const made = outcomes.some((x) => x.kind === 'made')
    return { receipt: made ? 'done' : 'failed', text: await o.redactor.redact(text) }
  } catch (err) {
    return failed(o, err, signal)
  }
}

/** How to run `prompt`: a plain turn, a document turn, or an answer without the agent. */
export async function planTurn(o: DocTurnOptions, prompt: string, signal: AbortSignal): Promise<TurnPlan> {
  const plain: TurnPlan = {
    kind: 'agent',
    agentPrompt: prompt,
    report: (result, turn) => reportTurn(result, turn, o.redactor, o.turnTimeoutMs, o.host),
  }
  const asked = parseDocPrompt(prompt)
  if (asked === undefined) return plain
  const review = o.review
  if (review === undefined) return { kind: 'answer', report: { receipt: 'failed', text: NO_DOC_ACCESS } }
  let doc: OpenedDoc
  try {
    doc = await review.open(asked.title, signal)
  } catch (err) {
    return { kind: 'answer', report: await failed(o, err, signal) }
  }
  return {
    kind: 'agent',
    agentPrompt: buildDocPrompt(asked, doc.text),
    report: (result, turn) => reportDocTurn({ ...o, review }, doc, result, turn, signal),
  }
}
