/**
 * `setup --link`: this machine becomes a linked device of the person's phone. startLink gives a
 * `sgnl://linkdevice` URI, shown as a QR code in the terminal and on a local page; finishLink waits
 * for the scan with a visible countdown. A code that expires gets a fresh one, up to `attempts`.
 */
import type { ProvisioningClient } from '@e2e-col/signal-cli'
import { asCliError } from './errors.ts'
import { adviceFor } from './failure-advice.ts'
import { startLinkPage, type LinkPage } from './qr-page.ts'
import { PHONE_STEPS, terminalQr } from './qr.ts'
import type { Terminal } from './terminal.ts'

/** How long signal-cli's provisioning socket waits for the phone (about a minute). */
export const LINK_WINDOW_MS = 60_000

export interface LinkOptions {
  readonly deviceName: string
  /** QR codes offered before giving up (each valid for about a minute). */
  readonly attempts: number
  /** Serve the QR code on a local page too. */
  readonly page: boolean
  /** Called with the link URI once it is shown (tests "scan" it). */
  readonly onUri?: (uri: string) => void
}

/** Links and resolves with the phone's number. @throws CliError */
export async function linkDevice(
  rpc: ProvisioningClient,
  term: Terminal,
  options: LinkOptions,
  signalCliDir: string,
): Promise<string> {
  let page: LinkPage | undefined
  try {
    if (options.page) {
      page = await startLinkPage()
    }
    for (let attempt = 1; ; attempt++) {
      let uri: string
      try {
        uri = await rpc.startLink()
      } catch (error) {
        throw adviceFor('startLink', error)
      }
      const deadline = Date.now() + LINK_WINDOW_MS
      await page?.set({ status: 'waiting', uri, deadline })
      term.say('')
      term.say(await terminalQr(uri))
      for (const line of PHONE_STEPS) term.say(line)
      if (page !== undefined) term.say(`The same code, larger: ${page.url}`)
      term.say(`(It links this computer as "${options.deviceName}". Link: ${uri})`)
      options.onUri?.(uri)
      const stop = term.countdown('Waiting for the scan…', deadline)
      try {
        const number = await rpc.finishLink(uri, options.deviceName, LINK_WINDOW_MS)
        stop()
        await page?.set({ status: 'linked', number })
        return number
      } catch (error) {
        stop()
        const advice = adviceFor('finishLink', error, { signalCliDir })
        if (advice.code === 'CLI_LINK_TIMEOUT' && attempt < options.attempts) {
          term.say(`The code expired without a scan; here is a new one (${attempt + 1} of ${options.attempts}).`)
          continue
        }
        await page?.set({ status: 'failed', message: `${advice.message}. ${advice.hint}` })
        throw advice
      }
    }
  } catch (error) {
    if (asCliError(error) !== undefined) throw error
    throw adviceFor('finishLink', error, { signalCliDir })
  } finally {
    await page?.close()
  }
}
