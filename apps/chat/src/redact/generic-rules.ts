/**
 * The small generic layer under the provider rules: shapes that carry a secret whatever issued it.
 * Each rule keeps the harmless context (the key name, the scheme, the user name) and masks the value,
 * so a reader still sees what was there. Patterns are linear (no nested quantifiers over the same
 * characters) to stay safe on 10,000-line outputs.
 */
import { marker } from './marker.ts'

/** A quoted value, or an unquoted run that is not already a marker. */
const VALUE = String.raw`"(?!\[REDACTED)(?:[^"\\\n]|\\.){3,}"|'(?!\[REDACTED)(?:[^'\\\n]|\\.){3,}'|(?!\[REDACTED)[^\s"',;&}\])]{4,}`

function maskValue(kind: string): (match: string, key: string, value: string) => string {
  return (_m, key, value) => {
    const quote = value.startsWith('"') || value.startsWith("'") ? value.charAt(0) : ''
    return `${key}${quote}${marker(kind)}${quote}`
  }
}

interface Rule {
  kind: string
  pattern: RegExp
  replace: (match: string, ...groups: string[]) => string
}

const KEY_WORDS =
  'password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|credentials?|session[_-]?id|cookie'

const RULES: readonly Rule[] = [
  {
    // PEM private keys, including a block cut off before its END line (a truncated tail).
    kind: 'private-key',
    pattern: /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$(?![\s\S]))/g,
    replace: () => marker('private-key'),
  },
  {
    // scheme://user:password@host: keep the user, mask the password.
    kind: 'url-credentials',
    pattern: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)([^\s:@/?#]{1,128}):([^\s@/?#]{1,256})@/gi,
    replace: (_m, scheme, user) => `${scheme}${user}:${marker('url-credentials')}@`,
  },
  {
    kind: 'jwt',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,1024}/g,
    replace: () => marker('jwt'),
  },
  {
    // Authorization headers and bare bearer credentials.
    kind: 'auth-header',
    pattern: /\b(Bearer|Basic|Token|Digest)(\s+)(?!\[REDACTED)([A-Za-z0-9._~+/=-]{8,})/g,
    replace: (_m, scheme, space) => `${scheme}${space}${marker('auth-header')}`,
  },
  {
    // key=value, key: value, "key": "value" (JSON-quoted keys too) for secret-ish key names.
    kind: 'assignment',
    pattern: new RegExp(
      `(["']?[A-Za-z0-9_.-]{0,40}(?:${KEY_WORDS})[A-Za-z0-9_.-]{0,40}["']?[ \\t]{0,3}[:=][ \\t]{0,3})(${VALUE})`,
      'gi',
    ),
    replace: maskValue('assignment'),
  },
  {
    // --password value, --token=value on a command line.
    kind: 'flag',
    pattern: new RegExp(`(--[A-Za-z0-9-]{0,40}(?:${KEY_WORDS})[A-Za-z0-9-]{0,40}(?:=|[ \\t]{1,3}))(${VALUE})`, 'gi'),
    replace: maskValue('flag'),
  },
  {
    // Signal device-link URIs: whoever holds one can link a device to the account.
    kind: 'signal-link',
    pattern: /\b(?:sgnl:\/\/linkdevice|tsdevice:\/?)\?[^\s]{8,}/g,
    replace: () => marker('signal-link'),
  },
  {
    // Provider prefixes the preset may not cover (or covers only in some contexts).
    kind: 'provider-token',
    pattern:
      /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{35}\b|\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b|\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}\b|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{40,}\b|\bglpat-[A-Za-z0-9_-]{20,}\b|\bnpm_[A-Za-z0-9]{36}\b|\bxox[abposr]-[A-Za-z0-9-]{10,}\b|\bhf_[A-Za-z0-9]{30,}\b|\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\b|\bSK[0-9a-f]{32}\b|\bdop_v1_[a-f0-9]{64}\b|\bshpat_[a-fA-F0-9]{32}\b|\bpypi-[A-Za-z0-9_-]{50,}\b/g,
    replace: () => marker('provider-token'),
  },
]

/** Applies every generic rule in order. Idempotent: markers never match a rule. */
export function maskGeneric(text: string): string {
  let out = text
  for (const rule of RULES) {
    out = out.replace(rule.pattern, rule.replace as (substring: string, ...args: unknown[]) => string)
  }
  return out
}
