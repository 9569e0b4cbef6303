// The toy's account-free flows over real HTTP: link through the admin route's "scan", register and
// verify with the code the admin route reveals, and the failures a setup tool has to explain.
import { describe, expect, it } from 'vitest'
import type { ToySignal, ToySignalOptions } from '../src/index.ts'
import { rpc, startToy } from './toy-rpc.ts'

const PHONE = '+15555550123'

const start = (options: ToySignalOptions = {}): Promise<ToySignal> => startToy({ faults: true, ...options })

async function admin(toy: ToySignal, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(
    `${toy.url}/toy/v1/${path}`,
    body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) },
  )
  const text = await res.text()
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) }
}

describe('toy linking', () => {
  it('gives a sgnl://linkdevice URI whose finishLink completes when the admin route scans it, adding the account', async () => {
    const toy = await start()
    const { result } = await rpc(toy, 'startLink')
    expect(result.deviceLinkUri).toMatch(/^sgnl:\/\/linkdevice\?uuid=[\w-]{22}&pub_key=[\w%]+$/)
    expect(new URL(result.deviceLinkUri).searchParams.get('pub_key')).toHaveLength(44)
    expect((await admin(toy, 'provisioning/links')).json).toEqual([
      { deviceLinkUri: result.deviceLinkUri, createdAt: expect.any(Number) },
    ])
    const finishing = rpc(toy, 'finishLink', { deviceLinkUri: result.deviceLinkUri, deviceName: 'e2e-col on test' })
    // The scan arrives while finishLink waits, as a phone's does.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await admin(toy, 'provisioning/scan', { deviceLinkUri: result.deviceLinkUri, number: PHONE })).status).toBe(
      204,
    )
    expect(await finishing).toEqual({ jsonrpc: '2.0', result: { number: PHONE }, id: 7 })
    expect((await rpc(toy, 'listAccounts')).result).toEqual([{ number: PHONE }])
    // The link is used up.
    expect((await rpc(toy, 'finishLink', { deviceLinkUri: result.deviceLinkUri })).error).toEqual({
      code: -1,
      message: 'Unknown device link uri.',
      data: null,
    })
    expect((await admin(toy, 'provisioning/scan', { deviceLinkUri: result.deviceLinkUri, number: PHONE })).status).toBe(
      404,
    )
  })

  it('times out like signal-cli when nobody scans, and reports a refusing phone as an I/O error', async () => {
    const toy = await start({ linkTimeoutMs: 200 })
    const first = (await rpc(toy, 'startLink')).result.deviceLinkUri
    expect((await rpc(toy, 'finishLink', { deviceLinkUri: first })).error).toEqual({
      code: -1,
      message: 'Link request timed out, please try again.',
      data: null,
    })
    const second = (await rpc(toy, 'startLink')).result.deviceLinkUri
    expect((await admin(toy, 'provisioning/refuse', { deviceLinkUri: second })).status).toBe(204)
    expect((await rpc(toy, 'finishLink', { deviceLinkUri: second })).error.code).toBe(-3)
    expect((await rpc(toy, 'listAccounts')).result).toEqual([])
  })

  it('refuses a missing, malformed or unknown URI and a number that is already an account', async () => {
    const toy = await start({ accounts: [PHONE] })
    expect((await rpc(toy, 'finishLink', {})).error.message).toBe('Missing deviceLinkUri.')
    expect((await rpc(toy, 'finishLink', { deviceLinkUri: 'not a uri' })).error.message).toBe(
      'Invalid device link uri.',
    )
    expect(
      (await rpc(toy, 'finishLink', { deviceLinkUri: 'sgnl://linkdevice?uuid=abc&pub_key=def' })).error.message,
    ).toBe('Unknown device link uri.')
    const uri = (await rpc(toy, 'startLink')).result.deviceLinkUri
    await admin(toy, 'provisioning/scan', { deviceLinkUri: uri, number: PHONE })
    const error = (await rpc(toy, 'finishLink', { deviceLinkUri: uri })).error
    expect(error.code).toBe(-1)
    expect(error.message).toMatch(/^The user \+15555550123 already exists\nDelete ".+" before trying again\.$/)
  })

  it('has no startLink in single-account mode', async () => {
    const toy = await start({ singleAccount: PHONE })
    expect((await rpc(toy, 'startLink')).error).toEqual({ code: -32601, message: 'Method not implemented', data: null })
  })
})

describe('toy registration', () => {
  it('registers with the code the admin route reveals, and the number becomes an account', async () => {
    const toy = await start()
    expect(await rpc(toy, 'register', { account: PHONE })).toEqual({ jsonrpc: '2.0', result: {}, id: 7 })
    const codes = (await admin(toy, 'registration/codes')).json
    expect(codes).toEqual([{ number: PHONE, code: expect.stringMatching(/^\d{6}$/), voice: false }])
    const code: string = codes[0].code
    const wrong = code === '000000' ? '111111' : '000000'
    expect((await rpc(toy, 'verify', { account: PHONE, verificationCode: wrong })).error).toEqual({
      code: -3,
      message: 'Verify error: [403] Authorization failed!',
      data: null,
    })
    // signal-cli strips dashes from the code (123-456).
    expect(
      (await rpc(toy, 'verify', { account: PHONE, verificationCode: `${code.slice(0, 3)}-${code.slice(3)}` })).result,
    ).toEqual({})
    expect((await rpc(toy, 'listAccounts')).result).toEqual([{ number: PHONE }])
    expect((await admin(toy, 'registration/codes')).json).toEqual([])
  })

  it('asks for a captcha when told to, naming where to get one, and rejects a token that is not one', async () => {
    const toy = await start()
    expect((await admin(toy, 'registration/captcha', { number: PHONE })).status).toBe(204)
    const error = (await rpc(toy, 'register', { account: PHONE })).error
    expect(error.code).toBe(-1)
    expect(error.message).toContain('https://signalcaptchas.org/registration/generate.html')
    expect((await rpc(toy, 'register', { account: PHONE, captcha: 'nope' })).error.message).toBe(
      'Invalid captcha given.',
    )
    expect(
      (await rpc(toy, 'register', { account: PHONE, captcha: 'signalcaptcha://signal-hcaptcha.x.registration.y' }))
        .result,
    ).toEqual({})
  })

  it('needs the registration-lock PIN of a number registered elsewhere and counts wrong ones', async () => {
    const toy = await start()
    await admin(toy, 'registration/lock', { number: PHONE, pin: '4321' })
    await rpc(toy, 'register', { account: PHONE })
    const code = (await admin(toy, 'registration/codes')).json[0].code
    expect((await rpc(toy, 'verify', { account: PHONE, verificationCode: code })).error.message).toMatch(
      /^Verification failed! This number is locked with a pin/,
    )
    expect((await rpc(toy, 'verify', { account: PHONE, verificationCode: code, pin: '0000' })).error.message).toBe(
      'Verification failed! Invalid pin, tries remaining: 9',
    )
    expect((await rpc(toy, 'verify', { account: PHONE, verificationCode: code, pin: '4321' })).result).toEqual({})
  })

  it('answers verify without a registration as the real daemon does (a null session id) and needs an account', async () => {
    const toy = await start()
    expect((await rpc(toy, 'verify', { account: PHONE, verificationCode: '123456' })).error).toEqual({
      code: -32603,
      message:
        'Parameter specified as non-null is null: method org.whispersystems.signalservice.api.registration.RegistrationApi.verifyAccount, parameter sessionId (NullPointerException)',
      data: null,
    })
    expect((await rpc(toy, 'register', {})).error).toEqual({
      code: -32602,
      message: 'Method requires valid account parameter',
      data: null,
    })
    expect((await rpc(toy, 'register', { account: PHONE, voice: true })).error.message).toMatch(
      /Before requesting voice verification/,
    )
  })

  it('keeps at most 64 pending links', async () => {
    const toy = await start()
    const uris: string[] = []
    for (let i = 0; i < 70; i++) uris.push((await rpc(toy, 'startLink')).result.deviceLinkUri)
    const links = (await admin(toy, 'provisioning/links')).json as { deviceLinkUri: string }[]
    expect(links).toHaveLength(64)
    expect(links[0]?.deviceLinkUri).toBe(uris[6])
  })
})
