import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createRedactor } from '../redact/redactor.ts'
import { savedOutputPath } from '../state/saved-output.ts'
import type { Origin } from './origin.ts'
import { createOutputSender } from './output-sender.ts'
import type { PostedFile, PostOptions, PostResult } from './poster.ts'
import type { Speaker } from './speaker.ts'

const SECRET = 'zz-known-env-secret-value-31337'
const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const phone: Origin = { kind: 'signal', author: '+15550000002', timestamp: 1, device: 1 }
let dir: string | undefined
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

function setup(result: PostResult | Error = { kind: 'posted', total: 1 }, maxBytes = 1024) {
  dir = mkdtempSync(join(tmpdir(), 'e2e-col-output-'))
  const root = dir
  const files: Array<{ text: string; file: PostedFile; options: PostOptions | undefined }> = []
  const answers: string[] = []
  const told: string[] = []
  const logs: string[] = []
  const errors: Array<[string, unknown]> = []
  let release: (() => void) | undefined
  const gate = new Promise<void>((r) => (release = r))
  const speaker = {
    sendFile: async (text: string, file: PostedFile, _abort: AbortSignal, options?: PostOptions) => {
      files.push({ text, file, options })
      await gate
      if (result instanceof Error) throw result
      return result
    },
    answer: (_o: Origin, text: string) => void answers.push(text),
    tellGroup: (text: string) => void told.push(text),
  } as unknown as Speaker
  const sender = createOutputSender({
    root,
    groupId: GROUP,
    host: 'box',
    maxBytes,
    redactor: createRedactor({ env: { DEPLOY_TOKEN: SECRET } }),
    speaker,
    life: new AbortController().signal,
    stallMs: 900_000,
    log: (l) => logs.push(l),
    onError: (what, err) => void errors.push([what, err]),
  })
  return { root, sender, files, answers, told, logs, errors, release: () => release?.() }
}

describe('sending a saved output', () => {
  it('sends the latest saved output, redacted again, as a text file; one at a time', async () => {
    const s = setup()
    writeFileSync(savedOutputPath(s.root, GROUP, 2), 'old')
    writeFileSync(savedOutputPath(s.root, GROUP, 5), `five ${SECRET}\n`)
    expect(s.sender.request(phone, undefined)).toBe('sending the output of turn 5 (37 bytes saved)')
    expect(s.sender.request(phone, 2)).toBe('refused: an output file is being sent')
    expect(s.answers).toEqual(['an output file is being sent already: ask again once it is in.'])
    s.release()
    await s.sender.settled()
    expect(s.files).toHaveLength(1)
    const sent = s.files[0]
    expect(Buffer.from(sent?.file.data ?? []).toString()).toBe('five [REDACTED:env]\n')
    expect(sent?.file).toMatchObject({ name: 'turn-5-output.txt', contentType: 'text/plain' })
    expect(sent?.text).toBe('turn 5: its whole output (redacted, 20 bytes) is attached.')
    expect(sent?.options).toEqual({ stallMs: 900_000 })
    expect(s.logs).toEqual(['turn 5: its output (20 bytes) is in the group'])
    expect(s.sender.request(phone, 2)).toBe('sending the output of turn 2 (3 bytes saved)')
  })

  it('sends the start of an output over the bound, and says where the whole is', async () => {
    const s = setup(undefined, 1024)
    const file = savedOutputPath(s.root, GROUP, 1)
    writeFileSync(file, 'é'.repeat(1000))
    s.sender.request(phone, 1)
    s.release()
    await s.sender.settled()
    const sent = s.files[0]
    expect(sent?.file.data.length).toBe(1024)
    expect(sent?.text).toBe(
      `turn 1: the first 1024 bytes of its output (redacted) are attached, the most one file may carry; all 2000 bytes are on box in ${file}.`,
    )
  })

  it('says so when there is nothing saved, and tells the group when the file could not be sent', async () => {
    const s = setup({ kind: 'stalled', posted: 0, total: 1, reason: 'stranger' })
    expect(s.sender.request(phone, undefined)).toBe('no saved output')
    expect(s.sender.request(phone, 4)).toBe('no saved output')
    expect(s.answers).toEqual([
      'no saved output: only a reply too long to post saves one.',
      'turn 4 has no saved output: only a reply too long to post saves one.',
    ])
    const file = savedOutputPath(s.root, GROUP, 4)
    writeFileSync(file, 'x')
    s.sender.request(phone, 4)
    s.release()
    await s.sender.settled()
    expect(s.told).toEqual([`turn 4: its output file could not be sent (stranger); it is on box in ${file}.`])
    expect(s.logs).toEqual(['turn 4: its output could not be sent (stranger)'])
  })

  it('settled() resolves at once when nothing is being sent, and waits for a file in flight', async () => {
    const s = setup()
    await s.sender.settled()
    writeFileSync(savedOutputPath(s.root, GROUP, 1), 'x')
    s.sender.request(phone, 1)
    let settled = false
    const p = s.sender.settled().then(() => {
      settled = true
    })
    await new Promise<void>((r) => setImmediate(r))
    expect(settled).toBe(false)
    s.release()
    await p
    expect(s.files).toHaveLength(1)
  })

  it('reports a send that broke as `output`, and takes the next request', async () => {
    const lost = new Error('daemon lost')
    const s = setup(lost)
    writeFileSync(savedOutputPath(s.root, GROUP, 1), 'x')
    s.sender.request(phone, 1)
    s.release()
    await s.sender.settled()
    expect(s.errors).toEqual([['output', lost]])
    expect(s.logs).toEqual([])
    expect(s.sender.request(phone, 1)).toBe('sending the output of turn 1 (1 bytes saved)')
  })

  it('says nothing more of a file the chat’s end stopped', async () => {
    const s = setup({ kind: 'aborted', posted: 0, total: 1 })
    writeFileSync(savedOutputPath(s.root, GROUP, 1), 'x')
    s.sender.request(phone, 1)
    s.release()
    await s.sender.settled()
    expect(s.files).toHaveLength(1)
    expect(s.told).toEqual([])
    expect(s.logs).toEqual([])
  })
})
