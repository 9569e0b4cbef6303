import { describe, expect, it } from 'vitest'
import {
  supportsAdminDelete,
  supportsMemberLabels,
  supportsNoUrgent,
  supportsTerminateGroup,
} from './daemon-capabilities.ts'

describe('supportsNoUrgent', () => {
  it('is true from signal-cli 0.14.0 on, suffixes included', () => {
    for (const v of ['0.14.0', '0.14.6', '0.14.6-toy', '0.15.0', '1.0.0', '0.14.10'])
      expect(supportsNoUrgent(v)).toBe(true)
  })

  it('is false before 0.14.0, for an unknown version and for none', () => {
    for (const v of ['0.13.19', '0.13.99', '0.9.20', 'unknown', '', undefined]) expect(supportsNoUrgent(v)).toBe(false)
  })
})

describe('supportsMemberLabels', () => {
  it('is true from signal-cli 0.14.1 on, false before and for an unknown version', () => {
    for (const v of ['0.14.1', '0.14.6-toy', '0.15.0']) expect(supportsMemberLabels(v)).toBe(true)
    for (const v of ['0.14.0', '0.13.19', 'unknown', undefined]) expect(supportsMemberLabels(v)).toBe(false)
  })
})

describe('supportsTerminateGroup', () => {
  it('is true from signal-cli 0.14.8 on, false before and for an unknown version', () => {
    for (const v of ['0.14.8', '0.14.8-toy', '0.14.10', '0.15.0']) expect(supportsTerminateGroup(v)).toBe(true)
    for (const v of ['0.14.7', '0.14.6-toy', '0.13.19', 'unknown', undefined])
      expect(supportsTerminateGroup(v)).toBe(false)
  })
})

describe('supportsAdminDelete', () => {
  it('is true from signal-cli 0.14.0 on, false before and for an unknown version', () => {
    for (const v of ['0.14.0', '0.14.6-toy', '0.15.0']) expect(supportsAdminDelete(v)).toBe(true)
    for (const v of ['0.13.24', '0.13.19', 'unknown', undefined]) expect(supportsAdminDelete(v)).toBe(false)
  })
})
