/** The device-link QR code: as terminal text and as SVG, from the `qrcode` library. */
import QRCode from 'qrcode'

/** Small (half-block) terminal rendering; fits an 80-column terminal for a ~100-character URI. */
export function terminalQr(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'L' })
}

export function svgQr(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'L' })
}

/** What to tap on the phone, one line per platform. */
export const PHONE_STEPS = [
  'On your phone, open Signal:',
  '  Android: tap your profile picture (or ⋮) → Linked devices → Link new device (+)',
  '  iPhone:  tap your profile picture → Settings → Linked Devices → Link New Device',
  'then point the camera at the code.',
]
