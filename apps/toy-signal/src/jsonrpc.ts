/**
 * JSON-RPC 2.0 request parsing exactly as signal-cli's `JsonRpcReader` does it over HTTP, including
 * Jackson's error texts, so a client cannot tell the toy from the real daemon by its -32700/-32600
 * answers. Pure: text in, parsed calls or ready-made error responses out.
 * @see docs/daemon-contract.md §2 and the reference `signal-cli-wire.md` §2.1
 */
import { RPC_CODES } from './rpc-failure.ts'

/** A JSON-RPC id as Jackson's `ValueNode` accepts it: any scalar. */
export type RpcId = string | number | boolean | null

/** One response object; `error.data` is always serialized, `null` when unused. */
export type RpcResponse =
  | { jsonrpc: '2.0'; result: unknown; id: RpcId }
  | { jsonrpc: '2.0'; error: { code: number; message: string; data: unknown }; id: RpcId }

/** A request that passed validation. `params` is still raw: commands map it to an object later. */
export interface RpcCall {
  method: string
  /** `undefined` for a notification (no `id` member): the answer is dropped. */
  id: RpcId | undefined
  params: unknown
}

/** What one request element turned into. */
export type RpcItem = { kind: 'call'; call: RpcCall } | { kind: 'invalid'; response: RpcResponse } | { kind: 'ignored' }

/** The whole body: one element, a batch, or a body-level error (parse error, wrong top-level type). */
export type ParsedRpcBody =
  | { kind: 'single'; item: RpcItem }
  | { kind: 'batch'; items: RpcItem[] }
  | { kind: 'rejected'; response: RpcResponse }

const KNOWN_MEMBERS = ['jsonrpc', 'method', 'id', 'params'] as const
const JACKSON_SOURCE = ' at [Source: UNKNOWN; byte offset: #UNKNOWN]'
const REQUEST_CLASS = 'org.asamk.signal.jsonrpc.JsonRpcRequest'

/** Builds an error response. */
export function errorResponse(code: number, message: string, id: RpcId, data: unknown = null): RpcResponse {
  return { jsonrpc: '2.0', error: { code, message, data }, id }
}

/** Parses an HTTP request body the way signal-cli does (`readTree`, then per-element validation). */
export function parseRpcBody(text: string): ParsedRpcBody {
  if (text.trim() === '') return rejected('unexpected type: MISSING')
  const tree = readTree(text)
  if (!tree.ok) return { kind: 'rejected', response: errorResponse(RPC_CODES.parseError, tree.message, null) }
  const value = tree.value
  if (Array.isArray(value)) {
    if (value.length === 0) return rejected('invalid request')
    return { kind: 'batch', items: value.map((element) => parseElement(element, true)) }
  }
  if (isObject(value)) return { kind: 'single', item: parseElement(value, false) }
  return rejected(`unexpected type: ${nodeType(value)}`)
}

function rejected(message: string): ParsedRpcBody {
  return { kind: 'rejected', response: errorResponse(RPC_CODES.invalidRequest, message, null) }
}

/**
 * Jackson's `readTree` reads the first value and ignores what follows, so `{"a":1} {"b":2}` is the
 * object `{"a":1}`. JSON.parse rejects trailing content; retry on the prefix to match.
 */
function readTree(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const trailing = /non-whitespace character after JSON at position (\d+)/.exec(message)
    if (trailing?.[1] !== undefined) {
      try {
        return { ok: true, value: JSON.parse(text.slice(0, Number(trailing[1]))) }
      } catch {
        // fall through to the parse error below
      }
    }
    const position = /at position (\d+)/.exec(message)
    const offset = position?.[1] === undefined ? text.length : Number(position[1])
    const before = text.slice(0, offset).split('\n')
    const line = before.length
    const column = (before.at(-1)?.length ?? 0) + 1
    const what =
      position === null && /end of JSON input/.test(message) ? 'Unexpected end-of-input' : 'Unexpected character'
    return {
      ok: false,
      message: `${what}\n at [Source: REDACTED (\`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION\` disabled); line: ${line}, column: ${column}]`,
    }
  }
}

function parseElement(node: unknown, inBatch: boolean): RpcItem {
  if (!isObject(node)) {
    return { kind: 'invalid', response: errorResponse(RPC_CODES.invalidRequest, notARequestMessage(node), null) }
  }
  // A lone object carrying result/error is a response from the client: signal-cli drops it. Inside a
  // batch it is mapped as a request and fails on the unknown member instead.
  if (!inBatch && ('result' in node || 'error' in node)) return { kind: 'ignored' }
  const rawId = node['id']
  const echoId: RpcId = isScalar(rawId) ? rawId : null
  const invalid = (message: string): RpcItem => ({
    kind: 'invalid',
    response: errorResponse(RPC_CODES.invalidRequest, message, echoId),
  })
  for (const [key, value] of Object.entries(node)) {
    const problem = memberProblem(key, value)
    if (problem !== undefined) return invalid(problem)
  }
  if (node['jsonrpc'] !== '2.0') return invalid('only jsonrpc version 2.0 is supported')
  const method = node['method']
  if (method === undefined || method === null) return invalid('method field must be set')
  const params = node['params'] ?? undefined
  // Jackson coerces scalar method names to text (`5` → "5").
  const call: RpcCall = { method: String(method), id: 'id' in node ? echoId : undefined, params }
  return { kind: 'call', call }
}

/** The Jackson mapping failure for one member of `JsonRpcRequest`, if any. */
function memberProblem(key: string, value: unknown): string | undefined {
  if (!(KNOWN_MEMBERS as readonly string[]).includes(key)) {
    return `Unrecognized field "${key}" (class ${REQUEST_CLASS}), not marked as ignorable (4 known properties: "method", "id", "jsonrpc", "params"])\n${JACKSON_SOURCE} (through reference chain: ${REQUEST_CLASS}["${key}"])`
  }
  if ((key === 'jsonrpc' || key === 'method') && value !== null && typeof value === 'object') {
    const shape = Array.isArray(value)
      ? 'Array value (token `JsonToken.START_ARRAY`)'
      : 'Object value (token `JsonToken.START_OBJECT`)'
    return `Cannot deserialize value of type \`java.lang.String\` from ${shape}\n${JACKSON_SOURCE} (through reference chain: ${REQUEST_CLASS}["${key}"])`
  }
  if (key === 'id' && value !== null && typeof value === 'object') {
    const node = Array.isArray(value) ? 'ArrayNode' : 'ObjectNode'
    return `Problem deserializing property 'id' (expected type: [simple type, class com.fasterxml.jackson.databind.node.ValueNode]; actual type: \`com.fasterxml.jackson.databind.node.${node}\`), problem: Can not set com.fasterxml.jackson.databind.node.ValueNode field ${REQUEST_CLASS}.id to com.fasterxml.jackson.databind.node.${node}\n${JACKSON_SOURCE} (through reference chain: ${REQUEST_CLASS}["id"])`
  }
  if (key === 'params' && value !== null && typeof value !== 'object') {
    const node =
      typeof value === 'string'
        ? 'TextNode'
        : typeof value === 'boolean'
          ? 'BooleanNode'
          : Number.isInteger(value)
            ? 'IntNode'
            : 'DoubleNode'
    return `Problem deserializing property 'params' (expected type: [simple type, class com.fasterxml.jackson.databind.node.ContainerNode<java.lang.Object>]; actual type: \`com.fasterxml.jackson.databind.node.${node}\`), problem: Can not set com.fasterxml.jackson.databind.node.ContainerNode field ${REQUEST_CLASS}.params to com.fasterxml.jackson.databind.node.${node}\n${JACKSON_SOURCE} (through reference chain: ${REQUEST_CLASS}["params"])`
  }
  return undefined
}

function notARequestMessage(node: unknown): string {
  if (typeof node === 'number') {
    return `Cannot construct instance of \`${REQUEST_CLASS}\` (although at least one Creator exists): no ${Number.isInteger(node) ? 'int/Int' : 'double/Double'}-argument constructor/factory method to deserialize from Number value (${node})\n${JACKSON_SOURCE}`
  }
  if (typeof node === 'string') {
    return `Cannot construct instance of \`${REQUEST_CLASS}\` (although at least one Creator exists): no String-argument constructor/factory method to deserialize from String value ('${node}')\n${JACKSON_SOURCE}`
  }
  if (Array.isArray(node)) {
    return `Cannot deserialize value of type \`${REQUEST_CLASS}\` from Array value (token \`JsonToken.START_ARRAY\`)\n${JACKSON_SOURCE}`
  }
  return `Cannot construct instance of \`${REQUEST_CLASS}\` (although at least one Creator exists): no boolean/Boolean-argument constructor/factory method to deserialize from ${node === null ? 'Null' : 'Boolean'} value (${String(node)})\n${JACKSON_SOURCE}`
}

/**
 * Maps command params the way signal-cli does (`LinkedHashMap`): absent or null is empty, an array
 * is the -32600 Jackson mapping error.
 */
export function paramsAsObject(
  params: unknown,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  if (params === undefined || params === null) return { ok: true, value: {} }
  if (isObject(params)) return { ok: true, value: { ...params } }
  return {
    ok: false,
    message: `Cannot deserialize value of type \`java.util.LinkedHashMap<java.lang.String,java.lang.Object>\` from Array value (token \`JsonToken.START_ARRAY\`)\n${JACKSON_SOURCE}`,
  }
}

function nodeType(value: unknown): string {
  if (value === null) return 'NULL'
  if (typeof value === 'number') return 'NUMBER'
  if (typeof value === 'boolean') return 'BOOLEAN'
  return 'STRING'
}

function isScalar(value: unknown): value is RpcId {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value)
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
