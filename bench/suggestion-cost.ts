/**
 * Section 14: what review costs in Signal sends and bytes (issue #40). On one stack (toy, two
 * sidecars, the default pacing), against a baseline measured in the same run: the same change made
 * as a plain edit on A's page. Then the same change proposed as a suggestion through A's sidecar
 * API (`POST …/suggestions`, an agent's), and accepted through B's sidecar (`POST …/accept`).
 * Each operation waits until B's (or A's) page holds its result, so every send it caused is
 * counted; A's and B's sends are told apart, and only bodies carrying document updates count
 * (the replica's sync traffic rides on its own timing).
 */
import { listSuggestions } from '@e2e-col/review'
import * as Y from 'yjs'
import { classifyBodies } from './send-counts.ts'
import { ACCOUNTS, PACING_DEFAULT, startBenchStack, untilDoc, untilSaved, type BenchStack } from './stack.ts'

/** One kind of operation, per operation: sends (bodies) and their UTF-8 bytes. */
export interface OperationCost {
  readonly operations: number
  readonly sendsPerOperation: number
  readonly bytesPerOperation: number
}

export interface SuggestionCostResult {
  /** The change as a plain edit on A's page (the baseline). */
  readonly edit: OperationCost
  /** The change proposed by an agent through A's sidecar. */
  readonly suggestion: OperationCost
  /** The suggestion accepted through B's sidecar (B's sends). */
  readonly accept: OperationCost
  readonly ratios: { readonly suggestionBytes: number; readonly acceptBytes: number }
  readonly targets: Record<string, boolean>
}

const WORDS = 12
const QUICK_WORDS = 4

/** The sentence of word `i`: unique, so a suggestion's quote occurs once. */
const sentence = (i: number): string => `Item ${i}: pack the blue bag number ${i}. `

async function api(stack: BenchStack, side: 'a' | 'b', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.sidecarUrl(side).replace(/^ws/, 'http')}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const json = (await res.json()) as Record<string, unknown>
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** Runs `op` `n` times, each awaited to its end, and counts `account`'s update-carrying sends. */
async function measure(
  stack: BenchStack,
  account: string,
  n: number,
  op: (i: number) => Promise<void>,
): Promise<OperationCost> {
  const before = stack.toy.sends().length
  for (let i = 0; i < n; i++) await op(i)
  const mine = stack.toy
    .sends()
    .slice(before)
    .filter((s) => s.account === account)
    .map((s) => s.message)
  const { edits, editBytes } = classifyBodies(mine)
  return { operations: n, sendsPerOperation: edits / n, bytesPerOperation: editBytes / n }
}

export async function benchSuggestionCost({ quick }: { quick: boolean }): Promise<SuggestionCostResult> {
  const n = quick ? QUICK_WORDS : WORDS
  const stack = await startBenchStack({ pacing: PACING_DEFAULT })
  try {
    const docId = stack.docIds[0] ?? ''
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const a = await stack.connect('a', docId, docA)
    await stack.connect('b', docId, docB)
    const textA = docA.getText('text')
    const all = Array.from({ length: 3 * n }, (_, i) => sentence(i)).join('')
    textA.insert(0, all)
    await untilDoc(docB, () => docB.getText('text').toString() === all, 'B to hold the text')
    await untilSaved(a.connection)

    // Baseline: A's page replaces "blue" with "green" in sentences 0..n-1, one edit each.
    const edit = await measure(stack, ACCOUNTS.a, n, async (i) => {
      const at = textA.toString().indexOf(sentence(i)) + sentence(i).indexOf('blue')
      docA.transact(() => {
        textA.delete(at, 'blue'.length)
        textA.insert(at, 'green')
      })
      const want = textA.toString()
      await untilDoc(docB, () => docB.getText('text').toString() === want, 'B to hold the edit')
    })

    // The same change as an agent's suggestion on sentences n..2n-1, through A's sidecar.
    const ids: string[] = []
    const suggestion = await measure(stack, ACCOUNTS.a, n, async (i) => {
      const { base } = await api(stack, 'a', `/v1/docs/${docId}/text`)
      const made = await api(stack, 'a', `/v1/docs/${docId}/suggestions`, {
        base,
        find: `blue bag number ${n + i}.`,
        replace: `green bag number ${n + i}.`,
        note: 'green is easier to find',
        agent: 'Claude',
      })
      const id = String(made['id'])
      ids.push(id)
      await untilDoc(docB, () => listSuggestions(docB).some((s) => s.id === id), 'B to hold the suggestion')
    })

    // Each accepted through B's sidecar: B's sends.
    const accept = await measure(stack, ACCOUNTS.b, n, async (i) => {
      const id = ids[i] ?? ''
      await api(stack, 'b', `/v1/docs/${docId}/suggestions/${id}/accept`, {})
      await untilDoc(
        docA,
        () => listSuggestions(docA).some((s) => s.id === id && s.status === 'accepted'),
        'A to hold the acceptance',
      )
    })
    const ratio = (x: OperationCost): number => x.bytesPerOperation / edit.bytesPerOperation
    return {
      edit,
      suggestion,
      accept,
      ratios: { suggestionBytes: ratio(suggestion), acceptBytes: ratio(accept) },
      targets: {
        oneSendPerSuggestion: suggestion.sendsPerOperation <= 1,
        oneSendPerAcceptance: accept.sendsPerOperation <= 1,
      },
    }
  } finally {
    await stack.close()
  }
}

const row = (name: string, c: OperationCost, ratio: number): void =>
  console.log(
    `| ${name} | ${c.sendsPerOperation.toFixed(2)} | ${c.bytesPerOperation.toFixed(0)} | ${ratio.toFixed(2)}x |`,
  )

export function printSuggestionCost(r: SuggestionCostResult): void {
  console.log(
    `\n## 14. Review: what a suggestion costs in Signal sends (${r.edit.operations} of each, one at a time; default pacing)\n`,
  )
  console.log('| operation | sends each | bytes each | bytes vs the plain edit |')
  console.log('|---|---|---|---|')
  row('plain edit on A’s page ("blue" → "green"; baseline)', r.edit, 1)
  row('suggestion of the same change through A’s sidecar (agent, note)', r.suggestion, r.ratios.suggestionBytes)
  row('acceptance through B’s sidecar', r.accept, r.ratios.acceptBytes)
  console.log('targets:', r.targets)
}
