import { CONTROL_PHRASES_HELP } from './control.ts'
import { EXIT_CODE_TABLE } from './exit-codes.ts'

/** The `--help` text. */
export function helpText(): string {
  return `e2e-col chat "<topic>" [options]

Drive a coding agent on this machine from an operator-only Signal group. Each message an operator
posts becomes the agent's next prompt, one turn at a time, in one pinned agent session; replies come
back redacted and chunked. The topic is the first prompt.

Options:
  --operator +E164          who may drive the agent (repeatable; or E2E_COL_CHAT_OPERATORS=+1…,+2…).
                            Required: no operator means nobody.
  --allow-tool TOOL         the agent's tool allowlist (repeatable). Default read-only:
                            copilot: view, grep, glob, shell(git status|log|diff), shell(cat)
                            claude:  Read, Grep, Glob, Bash(git status|log|diff:*), Bash(cat:*)
  --dangerous-all-tools     the agent's allow-all-tools flag (never allow-all paths/URLs);
                            overrides --allow-tool
  --agent copilot|claude|command   default copilot
  --agent-command ARGV      for --agent command: JSON array or words, with {sessionId} {prompt} {allowTool}
  --agent-program PATH      run this binary instead of copilot/claude from PATH
  --group-name NAME         instead of e2e-col-<host>[-<tmux session>]-<topic slug>
  --host NAME               host part of the group name (default: this hostname)
  --retry-budget N          daemon reconnect attempts before giving up with exit 4 (default 10)
  --inbox-capacity N        queued prompts (default 32; or E2E_COL_CHAT_INBOX_CAPACITY)
  --turn-timeout SECONDS    kill a turn after this long (default: no cap)
  --max-reply-bytes N       output kept in memory and posted per turn (default 1048576); beyond it the
                            whole output is saved (redacted) to a file in the state folder, the reply
                            says where, and "output" in the group sends it as a file
  --max-attachment-bytes N  the most of a saved output "output" sends as one file (default 8388608,
                            at most 67108864); the caption says where the rest is
  --delivery-timeout SECONDS  a reply that cannot be posted for this long is reported failed and saved
                            (default 900)
  --sidecar ws://HOST:PORT  attach to the local sidecar so browser consoles can follow and drive the
                            chat (or E2E_COL_SIDECAR_URL); prints the console's chat id
  --agent-token TOKEN       with --sidecar: a prompt "in 'Title': instruction" hands that document to
                            the agent and turns its answer into suggestions (or E2E_COL_CHAT_AGENT_TOKEN;
                            mint one with \`e2e-col agent token --doc <title>\`; never logged or posted)
  --unsafe-remote-endpoint  allow a signal-cli daemon (or sidecar) that is not on loopback
  --resume GROUP_ID         re-attach to a chat started here before (same group, same agent session)
  -h, --help                this text

Environment: SIGNAL_CLI_URL (default http://127.0.0.1:8080), SIGNAL_CLI_ACCOUNT (the account to use).

In the group: ${CONTROL_PHRASES_HELP}. Anything else is a prompt; "in 'Title': instruction" is a
document prompt (see --agent-token).

Exit codes:
${EXIT_CODE_TABLE.map((e) => `  ${e.code}  ${e.meaning}`).join('\n')}
`
}
