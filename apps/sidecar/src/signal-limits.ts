/**
 * The sidecar's own bounds checked against Signal's at start, so a configuration Signal would
 * refuse fails at once with a clear message instead of failing every large send later: a body
 * bound over Signal's limit for how the body travels (inline: one message's content, 96 KiB; with
 * long bodies allowed, signal-cli carries a body over 2,000 bytes as a long-text attachment, so the
 * attachment limit), or an attachment (a frame sent whole) over the attachment limit.
 * @see docs/sidecar.md §3 (configuration), reference `signal-cli-wire.md` §9.1
 */
import { SIGNAL_MAX_ATTACHMENT_BYTES, SIGNAL_MAX_CONTENT_BYTES } from '@e2e-col/signal-cli'
import type { SidecarConfig } from './config.ts'
import { SidecarError } from './errors.ts'

/** An attachment envelope's header, on top of the frame it carries (protocol envelope header bound). */
const ENVELOPE_HEADER_BYTES = 66

/** @throws SidecarError `CONFIG_INVALID` naming the variable and Signal's limit. */
export function checkSignalLimits(
  config: Pick<SidecarConfig, 'maxBodyBytes' | 'allowLongBodies' | 'capabilities'> & {
    browser: Pick<SidecarConfig['browser'], 'maxFrameBytes'>
  },
): void {
  const [bodyLimit, carried] = config.allowLongBodies
    ? [SIGNAL_MAX_ATTACHMENT_BYTES, 'a long-text attachment']
    : [SIGNAL_MAX_CONTENT_BYTES, 'one message']
  if (config.maxBodyBytes > bodyLimit)
    throw new SidecarError(
      'CONFIG_INVALID',
      `E2E_COL_SIGNAL_BODY_MAX_BYTES=${config.maxBodyBytes} is over Signal's limit for ${carried} (${bodyLimit} bytes): Signal would refuse such bodies`,
    )
  const attachmentBytes = config.browser.maxFrameBytes + ENVELOPE_HEADER_BYTES
  if (config.capabilities.includes('attachments') && attachmentBytes > SIGNAL_MAX_ATTACHMENT_BYTES)
    throw new SidecarError(
      'CONFIG_INVALID',
      `E2E_COL_MAX_FRAME_BYTES=${config.browser.maxFrameBytes} lets one attachment reach ${attachmentBytes} bytes, over Signal's attachment limit (${SIGNAL_MAX_ATTACHMENT_BYTES} bytes)`,
    )
}
