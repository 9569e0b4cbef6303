import { describe, expect, it } from 'vitest'
import { agentEnvironment, isLoopbackUrl, loadConfig } from './config.ts'

const env = { HOME: '/home/u' }
const run = (argv: string[], e: Record<string, string> = {}) => {
  const inv = loadConfig(argv, { ...env, ...e })
  if (inv.kind !== 'run') throw new Error('not a run')
  return inv.config
}

describe('chat config', () => {
  it('has least-privilege defaults', () => {
    const c = run(['chat', 'review', '--operator', '+15550000002'])
    expect(c).toMatchObject({
      agent: 'copilot',
      allTools: false,
      allowTools: [],
      retryBudget: 10,
      inboxCapacity: 32,
      turnTimeoutMs: undefined,
      unsafeRemoteEndpoint: false,
    })
    expect(c.signalUrl.href).toBe('http://127.0.0.1:8080/')
  })
  it('reads operators and inbox capacity from the environment; flags win', () => {
    expect(
      run(['chat', 't'], { E2E_COL_CHAT_OPERATORS: '+15550000002, +15550000003', E2E_COL_CHAT_INBOX_CAPACITY: '5' }),
    ).toMatchObject({ operators: ['+15550000002', '+15550000003'], inboxCapacity: 5 })
    expect(
      run(['chat', 't', '--operator', '+15550000009', '--inbox-capacity', '7'], {
        E2E_COL_CHAT_OPERATORS: '+15550000002',
        E2E_COL_CHAT_INBOX_CAPACITY: '5',
      }),
    ).toMatchObject({ operators: ['+15550000009'], inboxCapacity: 7 })
  })
  it('rejects malformed numbers, unknown flags and missing topics with usage errors', () => {
    expect(() => loadConfig(['chat', 't', '--operator', '5550000002'], env)).toThrow(
      expect.objectContaining({ code: 'CHAT_CONFIG_INVALID' }),
    )
    expect(() => loadConfig(['chat', 't', '--operator', '+15550000002', '--yolo'], env)).toThrow(
      expect.objectContaining({ code: 'CHAT_USAGE' }),
    )
    expect(() => loadConfig(['chat', '--operator', '+15550000002'], env)).toThrow(
      expect.objectContaining({ code: 'CHAT_USAGE' }),
    )
    expect(() => loadConfig(['chat', 't', '--operator', '+15550000002', '--inbox-capacity', '0'], env)).toThrow(
      expect.objectContaining({ code: 'CHAT_CONFIG_INVALID' }),
    )
  })
  it('reads the agent token from --agent-token or E2E_COL_CHAT_AGENT_TOKEN, and never echoes a bad one', () => {
    const op = ['chat', 't', '--operator', '+15550000002']
    expect(run(op).agentToken).toBeUndefined()
    expect(run(op, { E2E_COL_CHAT_AGENT_TOKEN: 'env-token-123456' }).agentToken).toBe('env-token-123456')
    expect(
      run([...op, '--agent-token', 'flag-token-123456'], { E2E_COL_CHAT_AGENT_TOKEN: 'env-token-123456' }).agentToken,
    ).toBe('flag-token-123456')
    const bad = 'x'.repeat(300)
    let message = ''
    try {
      loadConfig([...op, '--agent-token', bad], env)
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toContain('agentToken')
    expect(message).not.toContain(bad)
  })
  it('reads the daemon settings like the sidecar does, and the sidecar to attach to', () => {
    expect(
      run(['chat', 't', '--operator', '+15550000002'], {
        SIGNAL_CLI_URL: 'http://localhost:9000',
        SIGNAL_CLI_ACCOUNT: '+15550000001',
        E2E_COL_SIDECAR_URL: 'ws://127.0.0.1:7600',
      }),
    ).toMatchObject({ account: '+15550000001', sidecarUrl: new URL('ws://127.0.0.1:7600') })
    expect(run(['chat', 't', '--operator', '+15550000002', '--sidecar', 'ws://[::1]:7601']).sidecarUrl?.port).toBe(
      '7601',
    )
    expect(() =>
      loadConfig(['chat', 't', '--operator', '+15550000002'], { ...env, SIGNAL_CLI_URL: 'http://127.0.0.1:8080/api' }),
    ).toThrow(expect.objectContaining({ code: 'CHAT_CONFIG_INVALID' }))
    expect(() =>
      loadConfig(['chat', 't', '--operator', '+15550000002', '--sidecar', 'http://127.0.0.1:7600'], env),
    ).toThrow(expect.objectContaining({ code: 'CHAT_CONFIG_INVALID' }))
  })
  it('asks for help with no arguments or -h', () => {
    expect(loadConfig([], env)).toEqual({ kind: 'help' })
    expect(loadConfig(['chat', '-h'], env)).toEqual({ kind: 'help' })
  })
  it('knows loopback endpoints', () => {
    for (const u of ['http://127.0.0.1:8080', 'http://localhost:1', 'http://[::1]:8080', 'http://127.1.2.3'])
      expect(isLoopbackUrl(new URL(u))).toBe(true)
    for (const u of ['http://10.0.0.1:8080', 'http://example.org', 'http://127.0.0.1.example.org', 'http://[::2]'])
      expect(isLoopbackUrl(new URL(u))).toBe(false)
  })

  it('the agent does not inherit the agent token: only the chat posts suggestions with it', () => {
    const agentEnv = agentEnvironment({ PATH: '/bin', E2E_COL_CHAT_AGENT_TOKEN: 'env-token-123456' })
    expect(agentEnv).toEqual({ PATH: '/bin' })
  })
})
