/**
 * Opening the home page in the person's browser: a one-method port, so `up` can be tested with a
 * fake, and the system opener behind it (the `open` package: xdg-open, open, start). On Linux
 * without a display there is no browser to show a page, so it does not try.
 */
import open from 'open'
import type { Terminal } from './terminal.ts'

export interface Opener {
  /** Opens `url`; rejects with a one-line reason when it cannot. */
  open(url: string): Promise<void>
}

export function systemOpener(env: Record<string, string | undefined>, platform: NodeJS.Platform): Opener {
  return {
    open: async (url) => {
      if (platform === 'linux' && !env['DISPLAY'] && !env['WAYLAND_DISPLAY'])
        throw new Error('no graphical display here (DISPLAY and WAYLAND_DISPLAY are unset)')
      const child = await open(url, { wait: false })
      // The launcher runs detached; it must not keep `up` alive or crash it if it fails later.
      child.on('error', () => {})
      child.unref()
    },
  }
}

/** After `up` is ready: opens the home page unless `--no-open`, and says what happened. */
export async function openHome(url: string, o: { wanted: boolean; opener: Opener; term: Terminal }): Promise<void> {
  if (!o.wanted) return
  try {
    await o.opener.open(url)
    o.term.say('Opened it in your browser (--no-open to skip that).')
  } catch (error) {
    o.term.say(
      `Could not open a browser (${error instanceof Error ? error.message : String(error)}): open the address above.`,
    )
  }
}
