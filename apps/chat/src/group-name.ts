/** Longest slug taken from the topic. */
export const MAX_TOPIC_SLUG = 40

/**
 * Lowercases, folds accents, turns every run of non-alphanumerics into one `-` and trims dashes.
 * `max` cuts the result (and re-trims, so a slug never ends in `-`).
 */
export function slugify(text: string, max = Number.POSITIVE_INFINITY): string {
  const folded = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
  const slug = folded.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
  return slug.slice(0, max).replace(/-+$/g, '')
}

/** Inputs of {@link chatGroupName}. */
export interface GroupNameParts {
  host: string
  topic: string
  /** The tmux session the command runs in, when there is one. */
  tmuxSession?: string | undefined
  /** `--group-name`: used verbatim (trimmed) when non-empty. */
  override?: string | undefined
}

/**
 * The group name `e2e-col-<host>[-<tmux session>]-<slug(topic)>`; the topic slug is at most
 * {@link MAX_TOPIC_SLUG} characters and `chat` when the topic has no alphanumerics.
 */
export function chatGroupName(parts: GroupNameParts): string {
  const override = parts.override?.trim()
  if (override) return override
  const host = slugify(parts.host) || 'host'
  const tmux = parts.tmuxSession === undefined ? '' : slugify(parts.tmuxSession)
  const topic = slugify(parts.topic, MAX_TOPIC_SLUG) || 'chat'
  return ['e2e-col', host, ...(tmux ? [tmux] : []), topic].join('-')
}
