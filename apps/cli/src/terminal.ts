/**
 * Where the CLI talks: lines to stdout, a countdown that rewrites one line on a terminal (and
 * prints a line every 15 s otherwise, so logs stay short), and prompts only when a person is there.
 */
import { createInterface } from 'node:readline/promises'
import { CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'

export interface Terminal {
  readonly interactive: boolean
  say(line: string): void
  /** Shows `label` with the seconds left until `deadline`; returns a stop function. */
  countdown(label: string, deadline: number): () => void
  /** Asks one question; throws CLI_NEEDS_INPUT when nobody can answer (`flag` names the way out). */
  ask(question: string, flag: string): Promise<string>
}

function clock(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000))
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
}

export function processTerminal(options: { interactive?: boolean } = {}): Terminal {
  const tty = process.stdout.isTTY === true
  const interactive = options.interactive ?? (process.stdin.isTTY === true && tty)
  return {
    interactive,
    say: (line) => {
      process.stdout.write(`${line}\n`)
    },
    countdown(label, deadline) {
      const draw = (): void => {
        const text = `${label} ${clock(deadline - Date.now())} left`
        if (tty) process.stdout.write(`\r\u001b[2K${text}`)
        else process.stdout.write(`${text}\n`)
      }
      draw()
      const timer = setInterval(draw, tty ? 1000 : 15_000)
      return () => {
        clearInterval(timer)
        if (tty) process.stdout.write('\r\u001b[2K')
      }
    },
    async ask(question, flag) {
      if (!interactive) {
        throw new CliError(
          'CLI_NEEDS_INPUT',
          EXIT.usage,
          `${question.replace(/[:?]\s*$/, '')}: no terminal to ask on`,
          `pass ${flag}`,
        )
      }
      const rl = createInterface({ input: process.stdin, output: process.stdout })
      try {
        return (await rl.question(`${question} `)).trim()
      } finally {
        rl.close()
      }
    },
  }
}
