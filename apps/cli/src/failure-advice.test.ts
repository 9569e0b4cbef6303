// signal-cli's own messages (0.13.19, seen on a real daemon or read in its source) mapped to what
// setup tells a person.
import { describe, expect, it } from 'vitest'
import { SignalRpcError, SignalUnavailableError } from '@e2e-col/signal-cli'
import { adviceFor, type SetupStep } from './failure-advice.ts'

const rpc = (_method: string, code: number, message: string) => new SignalRpcError(code, message)

describe('adviceFor', () => {
  const cases: [SetupStep, SignalRpcError, string, number][] = [
    ['startLink', rpc('startLink', -3, 'Link request error: Connection closed!'), 'CLI_SIGNAL_UNREACHABLE', 6],
    [
      'startLink',
      rpc('startLink', -1, 'Device link creation timed out, please try again.'),
      'CLI_SIGNAL_UNREACHABLE',
      6,
    ],
    ['finishLink', rpc('finishLink', -1, 'Link request timed out, please try again.'), 'CLI_LINK_TIMEOUT', 7],
    [
      'finishLink',
      rpc('finishLink', -3, 'Link request error: [403] Authorization failed! (AuthorizationFailedException)'),
      'CLI_LINK_REFUSED',
      7,
    ],
    [
      'finishLink',
      rpc('finishLink', -1, 'The user +15551234567 already exists\nDelete "/x/data/123456" before trying again.'),
      'CLI_ALREADY_EXISTS',
      7,
    ],
    [
      'register',
      rpc('register', -3, 'Failed to register: java.net.UnknownHostException: chat.signal.org (PushNetworkException)'),
      'CLI_SIGNAL_UNREACHABLE',
      6,
    ],
    [
      'register',
      rpc(
        'register',
        -1,
        'Captcha required for verification, use --captcha CAPTCHA\nTo get the token, go to https://signalcaptchas.org/registration/generate.html',
      ),
      'CLI_CAPTCHA_REQUIRED',
      8,
    ],
    ['register', rpc('register', -1, 'Invalid captcha given.'), 'CLI_CAPTCHA_REJECTED', 8],
    [
      'register',
      rpc('register', -5, 'Rate limit reached\nNext attempt may be tried at 2026-12-01T15:00:00Z'),
      'CLI_RATE_LIMITED',
      8,
    ],
    ['verify', rpc('verify', -3, 'Verify error: [403] Authorization failed!'), 'CLI_WRONG_CODE', 8],
    [
      'verify',
      rpc(
        'verify',
        -1,
        "Verification failed! This number is locked with a pin. Hours remaining until reset: 167\nUse '--pin PIN_CODE' to specify the registration lock PIN",
      ),
      'CLI_PIN_LOCKED',
      8,
    ],
    ['verify', rpc('verify', -1, 'Verification failed! Invalid pin, tries remaining: 9'), 'CLI_PIN_LOCKED', 8],
    ['startLink', rpc('startLink', -32601, 'Method not implemented'), 'CLI_DAEMON_FAILED', 5],
    [
      'verify',
      rpc(
        'verify',
        -32603,
        'Parameter specified as non-null is null: method org.whispersystems.signalservice.api.registration.RegistrationApi.verifyAccount, parameter sessionId (NullPointerException)',
      ),
      'CLI_REGISTRATION_FAILED',
      8,
    ],
  ]
  it.each(cases)('%s: %s → %s (exit %i)', (step, error, code, exit) => {
    const advice = adviceFor(step, error)
    expect(advice.code).toBe(code)
    expect(advice.exitCode).toBe(exit)
    expect(advice.hint.length).toBeGreaterThan(20)
  })

  it('says where to get a captcha and how to paste it', () => {
    const advice = adviceFor(
      'register',
      rpc('register', -1, 'Captcha required for verification, use --captcha CAPTCHA'),
    )
    expect(advice.hint).toContain('https://signalcaptchas.org/registration/generate.html')
    expect(advice.hint).toContain('signalcaptcha://')
    expect(advice.hint).toContain('--captcha')
  })

  it('tells a daemon that does not answer from Signal being unreachable', () => {
    const advice = adviceFor(
      'startLink',
      new SignalUnavailableError('signal-cli at http://127.0.0.1:1: startLink failed (ECONNREFUSED)'),
    )
    expect(advice.code).toBe('CLI_DAEMON_UNREACHABLE')
    expect(advice.exitCode).toBe(5)
  })
})
