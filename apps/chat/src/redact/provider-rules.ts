/**
 * Provider-shaped secrets (AWS, GCP, GitHub, Slack, npm, OpenAI, private keys, …) found by the
 * maintained secretlint recommend preset, run on a string through its core API.
 */
import { lintSource } from '@secretlint/core'
import { creator as recommendPreset } from '@secretlint/secretlint-rule-preset-recommend'
import { marker } from './marker.ts'

const CONFIG = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendPreset }] }

const SPACE = /\s/

/**
 * Widens a reported range to whole whitespace-delimited words: some rules report a range that
 * starts at the key and stops short of the value's end, and a half-masked secret is a leaked one.
 */
function widen(text: string, start: number, end: number): { start: number; end: number } {
  let s = Math.max(0, Math.min(start, text.length))
  let e = Math.max(s, Math.min(end, text.length))
  while (s > 0 && !SPACE.test(text.charAt(s - 1))) s--
  while (e < text.length && !SPACE.test(text.charAt(e))) e++
  return { start: s, end: e }
}

/** Masks every range the preset reports as `[REDACTED:<rule>]` (e.g. `[REDACTED:github]`). */
export async function maskProviderSecrets(text: string): Promise<string> {
  if (text === '') return text
  const result = await lintSource({
    source: { content: text, filePath: '/e2e-col-chat-output.txt', contentType: 'text' },
    options: { config: CONFIG, maskSecrets: true, noPhysicFilePath: true },
  })
  const ranges = result.messages
    .map((m) => ({
      ...widen(text, m.range[0], m.range[1]),
      kind: m.ruleId.replace(/^@secretlint\/secretlint-rule-/, ''),
    }))
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start || b.end - a.end)
  let out = ''
  let at = 0
  for (const r of ranges) {
    if (r.end <= at) continue // nested in a range already masked
    out += text.slice(at, Math.max(at, r.start)) + marker(r.kind)
    at = r.end
  }
  return out + text.slice(at)
}
