/**
 * Provider-shaped secrets (AWS, GCP, GitHub, Slack, npm, OpenAI, private keys, …) found by the
 * maintained secretlint recommend preset, run on a string through its core API.
 */
import { lintSource } from '@secretlint/core'
import { creator as recommendPreset } from '@secretlint/secretlint-rule-preset-recommend'
import { maskFindings } from './mask-findings.ts'

const CONFIG = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendPreset }] }

/** Masks every range the preset reports as `[REDACTED:<rule>]` (e.g. `[REDACTED:github]`). */
export async function maskProviderSecrets(text: string): Promise<string> {
  if (text === '') return text
  const result = await lintSource({
    source: { content: text, filePath: '/e2e-col-chat-output.txt', contentType: 'text' },
    options: { config: CONFIG, maskSecrets: true, noPhysicFilePath: true },
  })
  return maskFindings(
    text,
    result.messages.map((m) => ({
      start: m.range[0],
      end: m.range[1],
      kind: m.ruleId.replace(/^@secretlint\/secretlint-rule-/, ''),
    })),
  )
}
