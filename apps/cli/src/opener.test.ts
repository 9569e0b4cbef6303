import { describe, expect, it } from 'vitest'
import { openHome, systemOpener, type Opener } from './opener.ts'
import type { Terminal } from './terminal.ts'

function recorder(): { term: Terminal; lines: string[] } {
  const lines: string[] = []
  const term: Terminal = {
    interactive: false,
    say: (line) => void lines.push(line),
    countdown: () => () => {},
    ask: () => Promise.reject(new Error('no questions here')),
  }
  return { term, lines }
}

const HOME = 'http://127.0.0.1:5173/home.html?sidecar=ws://127.0.0.1:7600'

describe('opening the home page once up is ready', () => {
  it('opens it through the opener and says so', async () => {
    const opened: string[] = []
    const { term, lines } = recorder()
    await openHome(HOME, { wanted: true, opener: { open: async (url) => void opened.push(url) }, term })
    expect(opened).toEqual([HOME])
    expect(lines.join('\n')).toMatch(/Opened it in your browser \(--no-open/)
  })

  it('with --no-open, opens nothing and says nothing', async () => {
    const opened: string[] = []
    const { term, lines } = recorder()
    await openHome(HOME, { wanted: false, opener: { open: async (url) => void opened.push(url) }, term })
    expect(opened).toEqual([])
    expect(lines).toEqual([])
  })

  it('when no browser can be opened, says why and points at the printed address, without failing', async () => {
    const failing: Opener = { open: () => Promise.reject(new Error('xdg-open: not found')) }
    const { term, lines } = recorder()
    await openHome(HOME, { wanted: true, opener: failing, term })
    expect(lines).toEqual(['Could not open a browser (xdg-open: not found): open the address above.'])
  })

  it('the system opener does not try on Linux without a display', async () => {
    await expect(systemOpener({}, 'linux').open(HOME)).rejects.toThrow(/no graphical display/)
  })
})
