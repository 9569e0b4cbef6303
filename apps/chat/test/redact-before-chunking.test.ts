/**
 * "Redaction before chunking", on the path production uses: the agent's reply goes through the
 * running chat (reply delivery, speaker, poster) to the toy daemon, and the bodies the toy received
 * are inspected. A secret laid across every place the chunker could cut the unredacted reply must
 * reach the group masked whole: if the reply were cut first and each body redacted alone, each body
 * would hold a fragment no rule recognises.
 */
import { describe, expect, it } from 'vitest'
import { chunkReply, MAX_SIGNAL_BODY_BYTES } from '../src/loop/chunker.ts'
import { LOOP, unmark, useWorld } from './harness.ts'

const worlds = useWorld()

// An env value the redactor knows only by its exact text (STRADDLE_TOKEN is a secret-looking name).
// Long enough to cover the cut with the first body's lead line and the cut without it.
const SECRET = Array.from({ length: 12 }, (_, i) => `k${i}q7Zr2Xw`).join('')
// Pieces that must not appear in any body: every 10-character window of the secret.
const PIECES = Array.from({ length: SECRET.length - 9 }, (_, i) => SECRET.slice(i, i + 10))
// The first body's lead line as the poster writes it (the harness's `unmark` knows it too).
const lead = (total: number): string => `${total - 1} more part(s) follow; send cancel to stop them.`

describe('redaction before chunking (the production path)', () => {
  it('masks a secret that straddles the first chunk boundary of the unredacted reply', async () => {
    const { world, chat, groupId, sessionId } = await worlds.chat('echo first turn', [], {
      env: { STRADDLE_TOKEN: SECRET },
    })
    await chat.replied('echo first turn')

    // The fake agent echoes `session=<id> prompt=<prompt> allow=…`; with no space in the padding the
    // chunker has to cut inside the run of characters, at its byte budget.
    const head = `session=${sessionId} prompt=echo `
    // Where the first body is cut: 2000 bytes less the `(1/2)` mark line, less the lead line if any.
    const firstCut = MAX_SIGNAL_BODY_BYTES - '(1/2)\n'.length - `${lead(2)}\n`.length
    const pad = 'x'.repeat(firstCut - head.length - 40)
    const prompt = `echo ${pad}${SECRET}${'y'.repeat(60)}`
    const raw = `${head}${pad}${SECRET}${'y'.repeat(60)} allow=view,grep,glob\n`

    // The control: cut before redacting, with or without the lead line, the secret falls in two bodies.
    for (const options of [{}, { lead }]) {
      const cut = chunkReply(raw, undefined, options)
      expect(cut.length).toBeGreaterThan(1)
      expect(cut.some((body) => body.includes(SECRET))).toBe(false)
      expect(cut.some((body) => body.includes(SECRET.slice(0, 10)))).toBe(true)
    }

    const before = world.toy.sends().length
    const ts = await world.say(groupId, prompt)
    // ✅ comes once the whole reply is in the group.
    await chat.events.next('receipt', (e) => e.target === ts && e.state === 'done', 20_000)
    const bodies = world.toy
      .sends()
      .slice(before)
      .filter((s) => s.account === LOOP)
      .map((s) => s.message)
    expect(bodies.length).toBeGreaterThan(0)
    for (const body of bodies) for (const piece of PIECES) expect(body).not.toContain(piece)
    expect(bodies.join('\n')).toContain('[REDACTED:env]')
    expect(bodies.map(unmark).join('')).toBe(`${head}${pad}[REDACTED:env]${'y'.repeat(60)} allow=view,grep,glob\n`)
    chat.stop.abort()
    expect(await chat.exit).toBe(0)
  })
})
