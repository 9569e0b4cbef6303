/**
 * Reading command params the way signal-cli's `JsonRpcNamespace` does: camelCase or dashed names,
 * list flags given as one value or an array under the singular or the plural name, unknown params
 * ignored. Text params read any JSON value as its Java text; a wrong type for a list or a number
 * ends as -32603, as the Java `ClassCastException` does.
 */
import { z } from 'zod'
import { internalError } from '../rpc-failure.ts'

const StringList = z.array(z.string())
const Flag = z.union([z.boolean(), z.string()])

function pick(params: Record<string, unknown>, name: string): unknown {
  if (name in params) return params[name]
  const dashed = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
  return params[dashed]
}

/** Jackson maps a JSON integer to `Integer` inside this range and to `Long` outside it. */
const INT_MIN = -(2 ** 31)
const INT_MAX = 2 ** 31 - 1

/** Java's class name for the object Jackson maps `value` to. */
function javaClassOf(value: unknown): string {
  return typeof value === 'string'
    ? 'java.lang.String'
    : typeof value === 'number'
      ? !Number.isInteger(value)
        ? 'java.lang.Double'
        : value >= INT_MIN && value <= INT_MAX
          ? 'java.lang.Integer'
          : 'java.lang.Long'
      : typeof value === 'boolean'
        ? 'java.lang.Boolean'
        : Array.isArray(value)
          ? 'java.util.ArrayList'
          : 'java.util.LinkedHashMap'
}

/** The JVM's ClassCastException text, module note included (all these classes are java.base's). */
function castError(value: unknown, target: string): never {
  const from = javaClassOf(value)
  throw internalError(
    `class ${from} cannot be cast to class ${target} (${from} and ${target} are in module java.base of loader 'bootstrap')`,
    'ClassCastException',
  )
}

/**
 * A list flag (`recipient`/`recipients`, `groupId`/`groupIds`, …): empty when absent. As
 * `JsonRpcNamespace.getList`: the singular name wins and takes one value or a list; only without
 * it is the plural read, which must be a list; each element must be a text.
 */
export function listParam(params: Record<string, unknown>, singular: string, plural: string): string[] {
  const one = pick(params, singular)
  const value = one ?? pick(params, plural)
  if (value === undefined || value === null) return []
  const list = Array.isArray(value) ? (value as unknown[]) : one != null ? [value] : castError(value, 'java.util.List')
  const parsed = StringList.safeParse(list)
  if (!parsed.success)
    return castError(
      list.find((x) => typeof x !== 'string'),
      'java.lang.String',
    )
  return parsed.data
}

/** What Java's `toString()` prints for the object Jackson maps `value` to (String, Integer, Boolean, ArrayList, LinkedHashMap). */
function javaText(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return `[${value.map(javaText).join(', ')}]`
  if (typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}=${javaText(v)}`)
      .join(', ')}}`
  return String(value)
}

/**
 * A text param, `undefined` when absent or null. argparse4j's `getString` is `toString()`, so any
 * other JSON value is read as its Java text (`42`, `true`, `[a, b]`), never a ClassCastException.
 */
export function stringParam(params: Record<string, unknown>, name: string): string | undefined {
  const value = pick(params, name)
  if (value === undefined || value === null) return undefined
  return javaText(value)
}

/** A boolean flag; Jackson also accepts "true"/"false" text. */
export function flagParam(params: Record<string, unknown>, name: string): boolean {
  const value = pick(params, name)
  if (value === undefined || value === null) return false
  const parsed = Flag.safeParse(value)
  if (!parsed.success) castError(value, 'java.lang.Boolean')
  return parsed.data === true || parsed.data === 'true'
}

/**
 * A timestamp param (`getLong`), `undefined` when absent. Only a JSON integer that Jackson maps to
 * `Long` (outside the int range, as every millisecond timestamp is) passes; a small integer or a
 * string is a ClassCastException, as on the real daemon.
 */
export function numberParam(params: Record<string, unknown>, name: string): number | undefined {
  const value = pick(params, name)
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number' && Number.isSafeInteger(value) && (value < INT_MIN || value > INT_MAX)) return value
  return castError(value, 'java.lang.Long')
}
