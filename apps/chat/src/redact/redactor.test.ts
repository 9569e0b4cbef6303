import { describe, expect, it } from 'vitest'
import { createRedactor } from './redactor.ts'

/** Realistic secrets of many kinds, each embedded in the kind of line an agent would print. */
const CORPUS: ReadonlyArray<{ kind: string; secret: string; line: string }> = (
  [
    ['aws access key id', 'AKIAUJZDE8GXD6NCF10E', (s: string) => `aws_access_key_id = ${s}`],
    ['aws key id in prose', 'AKIAUJZDE8GXD6NCF10E', (s: string) => `the key ${s} is still active`],
    ['aws secret key', 'El2hpChYgCfrL1spNxnyVmihA+2O76UMFxFkM+R5', (s: string) => `AWS_SECRET_ACCESS_KEY=${s}`],
    ['github classic pat', 'ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8', (s: string) => `remote: using ${s} for push`],
    ['github oauth', 'gho_rESQedUStPKR0CsTy4Qwb8DwkNhFdnXsiVpz', (s: string) => `oauth ${s}`],
    [
      'github fine-grained pat',
      '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',
      (s: string) => `GH=${s}`,
    ],
    ['slack bot token', 'xoxb-159010928159-0139624595711-2FDEEtfjgVvVqE1SkHbn88Hx', (s: string) => `slack: ${s}`],
    [
      'slack user token',
      'xoxp-280841485253-888539336338-7500474395755-c1d190409a95cd609f74c686cffeae8e',
      (s: string) => `${s}`,
    ],
    [
      'slack webhook',
      'https://hooks.slack.com/services/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',
      (s: string) => `posting to ${s} now`,
    ],
    ['npm token', 'npm_N0MEQ7wjJJibaZUPgHV7iB3m03nbqnsGpWLu', (s: string) => `//registry.npmjs.org/:_authToken=${s}`],
    ['gitlab pat', 'glpat-qIA1id6Vw5DQL05HA064', (s: string) => `token ${s}`],
    ['gcp api key', 'AIzaqtc4xatws8phP9nhFyJfm5di4PzJ59FHz5r', (s: string) => `maps key: ${s}`],
    ['stripe live secret', 'sk_live_AhzCueQpBenQtYh5Xj8TPQxj', (s: string) => `Stripe.apiKey = "${s}";`],
    ['stripe restricted', 'rk_live_q4i9DoV8gz4FkQ1okTBGzvAm', (s: string) => `${s}`],
    [
      'openai project key',
      'sk-proj-wufUxbvJDCTbyvHNsG9eh6Yo4gfqrc5XlrWi0B26R08qzjI6',
      (s: string) => `OPENAI_API_KEY=${s}`,
    ],
    [
      'anthropic key',
      'sk-ant-api03--PlJhx2jIclHkCiHp6bR1IqfEouHgxzNNAL5wIScGebcy8F5n3-YNBDRzrZSgqbjG3uhkWKFLf6xuI5aHUQPFeNBTxaQWAA',
      (s: string) => `key is ${s}`,
    ],
    [
      'sendgrid',
      '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',
      (s: string) => `sendgrid ${s}`,
    ],
    ['twilio api key sid', 'SKa1cabe5d68ba192a8ccc92c2101896c9', (s: string) => `twilio ${s}`],
    ['hugging face', 'hf_6RsXcNOPmeMjvqPVStNKiaEdFrRgSnRFsT', (s: string) => `HF ${s}`],
    [
      'digitalocean',
      'dop_v1_3888d03c9a38c82600cce25e2d51996afa9863e7564d4a446d0a325c66c572b2',
      (s: string) => `doctl ${s}`,
    ],
    ['shopify', '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', (s: string) => `shop ${s}`],
    [
      'pypi',
      'pypi-AgEIcHlwaS5vcmcPptEJQzhkPkenG5ZFJoC6vWCBiJmpflvJfupxqZKm4bV3AyAVHnyrvWdFrK9',
      (s: string) => `password = ${s}`,
    ],
    [
      'jwt',
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6ImUyZSJ9.c2lnbmF0dXJlX3ZhbHVlX2hlcmU',
      (s: string) => `cookie jwt ${s}`,
    ],
    ['bearer header', 'f81d4fae7dec11d0a76500a0c91e6bf6', (s: string) => `Authorization: Bearer ${s}`],
    ['basic header', 'YWRtaW46czNjcjN0LXBhc3N3b3Jk', (s: string) => `-H "Authorization: Basic ${s}"`],
    ['postgres url', 'Xq9-pg-Pa55word', (s: string) => `DATABASE=postgres://app:${s}@db.internal:5432/app`],
    ['mongodb srv url', 'm0ng0-S3cret!', (s: string) => `mongodb+srv://admin:${s}@cluster0.abcd.mongodb.net/test`],
    ['redis url', 'r3disPassw0rd', (s: string) => `redis://default:${s}@cache:6379/0`],
    ['amqp url', 'rabbitPW2024', (s: string) => `amqp://guest:${s}@mq:5672/`],
    ['https basic in url', 'deploy-pw-77', (s: string) => `git clone https://ci-bot:${s}@git.example.org/repo.git`],
    ['env password', 'hunter2hunter2', (s: string) => `DB_PASSWORD=${s}`],
    ['yaml password', 'Tr0ub4dor&3', (s: string) => `  password: ${s}`],
    ['json quoted key', 'jsonQuotedSecret123', (s: string) => `{"client_secret": "${s}", "client_id": "abc"}`],
    ['json quoted key no space', 'anotherS3cretValue', (s: string) => `{"apiKey":"${s}"}`],
    ['single-quoted python', 'py-secret-value-42', (s: string) => `SECRET_KEY = '${s}'`],
    ['cli flag', 'cliTokenValue99', (s: string) => `run --token ${s} --verbose`],
    ['cli flag equals', 'flagPw=with=equals', (s: string) => `mysql --password=${s} -h db`],
    [
      'private key rsa',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA2a2rwplBQLF29amygykEMmYz0+Kcj3bKBp29S2HvYdYfBx2j\nz0jK3Wq3pSx7LWQ1YkG5DoZN1Xw5wxXJ9OZrx4b7Hq2m8AYoFa0dLLLaF4O6Y0ZP\n-----END RSA PRIVATE KEY-----',
      (s: string) => `key file:\n${s}\nend`,
    ],
    [
      'private key openssh',
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACB7J5mRkKfV3pXq4GmX6UyZ0f2bV8cQ9d1e0aYp3h2s1gAAAJgq\n-----END OPENSSH PRIVATE KEY-----',
      (s: string) => `${s}`,
    ],
    [
      'truncated pem',
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu',
      (s: string) => `tail of file:\n${s}`,
    ],
    ['signal link uri', 'sgnl://linkdevice?uuid=Gq2Jm4l0c3tq&pub_key=BZ4q9cXk3m2Rr7s', (s: string) => `scan ${s}`],
    ['tsdevice uri', 'tsdevice:/?uuid=Hf6k2Lq0p9&pub_key=BaQ8zW3xY5', (s: string) => `${s}`],
    ['env-known value', 'zz-known-env-secret-value-31337', (s: string) => `the deploy key was ${s}.`],
    ['env-known short-ish value', 'ab12cd34ef', (s: string) => `x${s}y`],
    ['access token assignment', 'at-9f8e7d6c5b4a', (s: string) => `access_token=${s}&expires=3600`],
    ['session cookie', 's%3Aabcdef0123456789', (s: string) => `Cookie: connect.sid; session_id=${s}`],
  ] as const
).map(([kind, secret, make]) => ({ kind, secret, line: make(secret) }))

const ENV = {
  DEPLOY_TOKEN: 'zz-known-env-secret-value-31337',
  MY_API_KEY: 'ab12cd34ef',
  HOME: '/home/operator',
  SHORT_TOKEN: 'abc',
  PATH: '/usr/bin:/bin',
}

describe('redaction', () => {
  const redactor = createRedactor({ env: ENV })

  it('has a corpus of at least 40 secrets', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(40)
  })

  it.each(CORPUS)('masks $kind', async ({ secret, line }) => {
    const out = await redactor.redact(line)
    for (const part of secret.split('\n').filter((p) => p.length >= 6)) expect(out).not.toContain(part)
    expect(out).toMatch(/\[REDACTED:[a-z0-9-]+\]/)
  })

  it('masks every corpus secret when all appear in one reply', async () => {
    const out = await redactor.redact(CORPUS.map((c) => c.line).join('\n'))
    for (const { secret } of CORPUS)
      for (const part of secret.split('\n').filter((p) => p.length >= 6)) expect(out).not.toContain(part)
  })

  const CLEAN = [
    'All 42 tests passed in 3.2s.',
    'src/loop/chunker.ts:12: prefer line breaks when splitting\n',
    'The review found two issues:\n1. the queue is unbounded\n2. errors are swallowed in fetchUser()',
    'git log --oneline\nabc1234 fix: keep the tail\n0f9e8d7 feat: add status',
    'Visit https://example.org/docs/guide#section for details.',
    'Ünïcödé ✓ — emoji 🎉 and CJK 漢字 stay as they are.',
    'function add(a, b) { return a + b }',
    'The token count was high, so I shortened the prompt.',
    'commit 5e0c2166873aeb799ac6881d1eed8cba is on main',
    'short env values like abc are not masked',
    '',
  ]
  it.each(CLEAN)('leaves secret-free text unchanged: %j', async (text) => {
    expect(await redactor.redact(text)).toBe(text)
  })

  it('is idempotent', async () => {
    const once = await redactor.redact(CORPUS.map((c) => c.line).join('\n'))
    expect(await redactor.redact(once)).toBe(once)
  })

  it('masks known values and generic shapes synchronously for log lines', () => {
    const line = redactor.redactSync('deploy with zz-known-env-secret-value-31337 and DB_PASSWORD=hunter2hunter2')
    expect(line).not.toContain('zz-known-env-secret-value-31337')
    expect(line).not.toContain('hunter2hunter2')
  })
})
