/**
 * Section 9: what two people typing together cost a linked phone. Both type at the recorded typing
 * pace (the `concurrent_clownschool` timing of section 2, one character a keystroke, each into a
 * text of their own) through their own sidecar, with the default pacing; every Signal send then
 * reaches both phones of the two-member group (the sender's as a sent transcript, the other's as a
 * message). Reported: messages per minute that reach one linked phone, and how many of them were
 * urgent (a push notification that wakes the phone). The goal is 0 urgent: the sidecar sends with
 * `noUrgent` to a daemon that takes it (the toy plays 0.14.6 here).
 */
import * as Y from 'yjs'
import { ACCOUNTS, PACING_DEFAULT, startBenchStack, untilDoc, untilSaved } from './stack.ts'
import { loadTrace, type TimedTrace } from './traces.ts'
import { TIMING_TRACE, typingSchedule } from './typing-speed.ts'

export interface PhoneWakeupsResult {
  readonly windowSeconds: number
  readonly keystrokesPerPerson: number
  /** Signal sends by each sidecar during the typing (and its flush). */
  readonly sends: { readonly a: number; readonly b: number }
  /** Sends that reach one linked phone (every send of the group), per minute of typing. */
  readonly messagesPerMinutePerPhone: number
  /** Of those, sent with the urgent flag. */
  readonly urgent: number
  readonly targets: { readonly noUrgentMessage: boolean }
}

const sleep = (t: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, t))

/** Types one character per scheduled keystroke at the end of `doc`'s text `name`. */
async function typeInto(doc: Y.Doc, name: string, offsets: readonly number[]): Promise<void> {
  const text = doc.getText(name)
  const start = performance.now()
  for (const offset of offsets) {
    const wait = start + offset - performance.now()
    if (wait > 1) await sleep(wait)
    text.insert(text.length, 'x')
  }
}

export async function benchPhoneWakeups({
  quick,
  windowMs,
}: {
  quick: boolean
  windowMs?: number
}): Promise<PhoneWakeupsResult> {
  const offsets = typingSchedule(loadTrace<TimedTrace>(TIMING_TRACE), windowMs ?? (quick ? 15_000 : 60_000))
  const stack = await startBenchStack({ pacing: PACING_DEFAULT })
  try {
    const docId = stack.docIds[0] ?? ''
    const docA = new Y.Doc()
    const docB = new Y.Doc()
    const a = await stack.connect('a', docId, docA)
    const b = await stack.connect('b', docId, docB)
    await Promise.all([untilSaved(a.connection), untilSaved(b.connection)])
    const before = stack.toy.sends().length
    await Promise.all([typeInto(docA, 'a', offsets), typeInto(docB, 'b', offsets)])
    const done = (doc: Y.Doc): boolean =>
      doc.getText('a').length === offsets.length && doc.getText('b').length === offsets.length
    await Promise.all([untilDoc(docA, () => done(docA)), untilDoc(docB, () => done(docB))])
    await Promise.all([untilSaved(a.connection), untilSaved(b.connection)])
    const sends = stack.toy.sends().slice(before)
    const seconds = (offsets.at(-1) ?? 0) / 1000 + 1
    const urgent = sends.filter((s) => s.urgent).length
    return {
      windowSeconds: seconds,
      keystrokesPerPerson: offsets.length,
      sends: {
        a: sends.filter((s) => s.account === ACCOUNTS.a).length,
        b: sends.filter((s) => s.account === ACCOUNTS.b).length,
      },
      messagesPerMinutePerPhone: sends.length / (seconds / 60),
      urgent,
      targets: { noUrgentMessage: urgent === 0 },
    }
  } finally {
    await stack.close()
  }
}

export function printPhoneWakeups(r: PhoneWakeupsResult): void {
  console.log(
    `\n## 9. What a linked phone sees of two people typing (${r.windowSeconds.toFixed(0)} s, ${r.keystrokesPerPerson} keystrokes each, ${TIMING_TRACE} timing; default pacing)\n`,
  )
  console.log('| sends by A | sends by B | messages reaching one phone per minute | of them urgent |')
  console.log('|---|---|---|---|')
  console.log(`| ${r.sends.a} | ${r.sends.b} | ${r.messagesPerMinutePerPhone.toFixed(1)} | ${r.urgent} |`)
  console.log('targets:', r.targets)
}
