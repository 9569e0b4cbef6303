// Output too long to post: saved redacted on disk (nothing unredacted stays), and `output` brings
// it to the group as a file, by the delivery rule, within the attachment bound.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  AGENT_SECRET,
  LOOP,
  OPERATOR,
  type RunningChat,
  STRANGER,
  stopsCleanly,
  unmark,
  until,
  useWorld,
} from './harness.ts'

const worlds = useWorld()

const GITHUB_TOKEN = 'ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8'
/** The fake agent's `secret-lines n` output, redacted as the loop must. */
const redactedLines = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    (i + 1) % 50 === 0 ? `line ${i + 1}: token [REDACTED:` : `line ${i + 1} of ${n}\n`,
  )

/** The whole reply of the first turn (its parts joined) and the saved file it names. */
async function savedReply(chat: RunningChat): Promise<{ file: string; reply: string }> {
  await chat.events.next('posted', (e) => /^\((\d+)\/\1\)\n/.test(e.text), 30_000)
  const reply = chat.events
    .posted()
    .filter((t) => /^\(\d+\/\d+\)\n/.test(t))
    .map(unmark)
    .join('')
  const file = /saved on testbox in (\S+);/.exec(reply)?.[1] as string
  return { file, reply }
}

describe('a reply too long to post', () => {
  it('is saved redacted (no raw copy left), and `output` sends the whole of it to the group as a file', async () => {
    const { world, chat, groupId } = await worlds.chat('secret-lines 400', ['--max-reply-bytes', '4000'])
    const phone = await worlds.phone(world, OPERATOR)
    const { file, reply } = await savedReply(chat)
    expect(reply).toContain('send "output" to get it here as a file')
    expect(file).toMatch(/\.turn-1\.output\.txt$/)
    const saved = readFileSync(file, 'utf8')
    expect(saved).not.toContain(AGENT_SECRET)
    expect(saved).not.toContain(GITHUB_TOKEN)
    for (const line of redactedLines(400)) expect(saved).toContain(line)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readdirSync(dirname(file)).filter((n) => n.endsWith('.output.raw'))).toEqual([])

    await world.say(groupId, ' Output ')
    const withFile = await phone.next((m) => (m.attachments?.length ?? 0) > 0, 'the output file on the phone')
    expect(withFile.sourceNumber).toBe(LOOP)
    expect(withFile.body).toBe(`turn 1: its whole output (redacted, ${Buffer.byteLength(saved)} bytes) is attached.`)
    const attached = withFile.attachments?.[0]
    expect(attached?.contentType).toBe('text/plain')
    const bytes = await phone.attachment(attached?.id as string, groupId)
    expect(Buffer.from(bytes).toString('utf8')).toBe(saved)
    const sent = world.toy.sends().filter((s) => s.account === LOOP && s.attachments === 1)
    expect(sent).toHaveLength(1)

    const audit = readFileSync(file.replace(/\.turn-1\.output\.txt$/, '.audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; text?: string; outcome: string })
    expect(audit).toContainEqual(
      expect.objectContaining({
        event: 'control',
        text: ' Output ',
        outcome: `sending the output of turn 1 (${Buffer.byteLength(saved)} bytes saved)`,
      }),
    )
    await stopsCleanly(chat)
  })

  it('sends at most --max-attachment-bytes of it, and the caption says where the whole is', async () => {
    const { world, chat, groupId } = await worlds.chat('secret-lines 400', [
      '--max-reply-bytes',
      '4000',
      '--max-attachment-bytes',
      '2048',
    ])
    const phone = await worlds.phone(world, OPERATOR)
    const { file } = await savedReply(chat)
    const saved = readFileSync(file)
    await world.say(groupId, 'output 1')
    const withFile = await phone.next((m) => (m.attachments?.length ?? 0) > 0, 'the output file on the phone')
    const bytes = Buffer.from(await phone.attachment(withFile.attachments?.[0]?.id as string, groupId))
    expect(bytes.length).toBeLessThanOrEqual(2048)
    expect(bytes.length).toBeGreaterThan(2000)
    expect(saved.subarray(0, bytes.length).equals(bytes)).toBe(true)
    expect(withFile.body).toBe(
      `turn 1: the first ${bytes.length} bytes of its output (redacted) are attached, the most one file may carry; all ${saved.length} bytes are on testbox in ${file}.`,
    )
    await stopsCleanly(chat)
  })

  it('is withheld while a stranger asks to join, and sent once the group is clean again', async () => {
    const { world, chat, groupId } = await worlds.chat('secret-lines 400', ['--max-reply-bytes', '4000'])
    await worlds.phone(world, OPERATOR)
    await savedReply(chat)
    await world.setGroupRequests(groupId, { requesting: [STRANGER] })
    const from = chat.events.events.length
    await world.say(groupId, 'output')
    await until(
      () => chat.events.events.slice(from).some((e) => e.type === 'withheld' && e.reason === 'stranger'),
      15_000,
      'the output file withheld',
    )
    expect(world.toy.sends().filter((s) => s.attachments === 1)).toEqual([])
    await world.setGroupRequests(groupId, { requesting: [] })
    const posted = await chat.events.next('posted', (e) => e.file === 'turn-1-output.txt')
    expect(posted.text).toMatch(/^turn 1: its whole output/)
    expect(world.toy.sends().filter((s) => s.attachments === 1)).toHaveLength(1)
    await stopsCleanly(chat)
  })

  it('`output` with nothing saved says so, and a turn without a saved output is named', async () => {
    const { world, chat, groupId } = await worlds.chat('echo short')
    await chat.turnEnded(1)
    await world.say(groupId, 'output')
    await chat.events.next('posted', (e) => e.text === 'no saved output: only a reply too long to post saves one.')
    await world.say(groupId, 'output 7')
    await chat.events.next('posted', (e) => e.text.startsWith('turn 7 has no saved output'))
    expect(world.toy.sends().filter((s) => s.attachments !== undefined)).toEqual([])
    expect(existsSync(world.agentLog) && world.agentRuns().map((r) => r.prompt)).toEqual(['echo short'])
    await stopsCleanly(chat)
  })
})
