/**
 * A generated request as data (each resource makes its own, resources/todo/testing/requests.ts, and
 * test/helpers/request-generators.ts makes sequences of them): a Step names its method,
 * collection, ids and a body Template, JSON text in pieces that can say what
 * JSON.stringify cannot and name a resource created earlier in the sequence. Here: the
 * types, rendering a Step for one server, and describing it for a failure message.
 *
 * Test code only: nothing the service runs imports src/testing/ or a resource's testing/.
 */

/** Which resource an id names: its name (`todo`, `member`). */
export type IdKind = string

/** How a reference is spelled: the id itself, or a near miss of it. */
export type IdVariant = 'same' | 'swapcase' | 'nul' | 'space' | 'short' | 'long'

/**
 * A resource of `ref`'s kind that exists at this point of the sequence: the `index`-th
 * newest (0 the newest; modulo their number), spelled as `variant` says.
 */
export interface IdRef {
  readonly ref: IdKind
  readonly index: number
  readonly variant: IdVariant
}

/** A path segment sent as is (already percent-encoded). */
export interface RawId {
  readonly raw: string
}

export type PathId = IdRef | RawId

/** One byte, sent as it is (bodies that are not valid UTF-8). */
export interface Byte {
  readonly byte: number
}

/** JSON text in pieces: text as is, a reference as a JSON string of the id, a raw byte. */
export type Piece = string | IdRef | Byte
export type Template = readonly Piece[]

export interface Step {
  readonly method: string
  /** The collection's path segment under /api/v1 (`todos`). */
  readonly collection: string
  readonly id?: PathId
  /** The query string, already percent-encoded (`?name=...`). */
  readonly query?: string
  readonly body?: Template
  readonly headers: Readonly<Record<string, string>>
}

export const isIdRef = (value: unknown): value is IdRef =>
  typeof value === 'object' && value !== null && 'ref' in value

const isByte = (value: Piece): value is Byte => typeof value === 'object' && 'byte' in value

/** A reference's id as this variant spells it. */
export function applyVariant(id: string, variant: IdVariant): string {
  switch (variant) {
    case 'same':
      return id
    case 'swapcase':
      // Every letter in the other case (not toUpperCase: a random id may have no lower-case letter).
      return id.replace(/[A-Za-z]/g, (letter) =>
        letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase(),
      )
    case 'nul':
      return `${id}\u0000`
    case 'space':
      return `${id} `
    case 'short':
      return id.slice(0, -1)
    case 'long':
      return `${id}x`
  }
}

export interface RenderedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string | Buffer
}

/** The body as sent: a string, or a Buffer when it holds raw bytes. */
export function renderTemplate(
  template: Template,
  resolve: (ref: IdRef) => string,
): string | Buffer {
  const text = (piece: string | IdRef) =>
    typeof piece === 'string' ? piece : JSON.stringify(resolve(piece))
  if (!template.some(isByte)) return template.map((piece) => text(piece as string | IdRef)).join('')
  return Buffer.concat(
    template.map((piece) =>
      isByte(piece) ? Buffer.from([piece.byte]) : Buffer.from(text(piece), 'utf8'),
    ),
  )
}

/** The request one server gets for `step`; `resolve` gives that server's id for a reference. */
export function renderStep(step: Step, resolve: (ref: IdRef) => string): RenderedRequest {
  let path = `/api/v1/${step.collection}`
  if (step.id !== undefined) {
    path += `/${isIdRef(step.id) ? encodeURIComponent(resolve(step.id)) : step.id.raw}`
  }
  path += step.query ?? ''
  return {
    method: step.method,
    path,
    headers: { ...step.headers },
    ...(step.body !== undefined && { body: renderTemplate(step.body, resolve) }),
  }
}

/** A reference as the generator made it: `{member 0}` is the newest member. */
const refNotation = (id: IdRef) =>
  `{${id.ref} ${id.index}${id.variant === 'same' ? '' : ` ${id.variant}`}}`

/**
 * One line a person can read: references as `name` shows them (by default `{member 0}`),
 * raw bytes as `\xFF`, control characters and lone surrogates as `<U+0000>`.
 */
export function describeStep(step: Step, name: (ref: IdRef) => string = refNotation): string {
  let path = `/api/v1/${step.collection}`
  if (step.id !== undefined) path += `/${isIdRef(step.id) ? name(step.id) : shorten(step.id.raw)}`
  path += shorten(step.query ?? '')
  const headers = Object.entries(step.headers)
    .map(([header, value]) => `${header}: ${value}`)
    .join('; ')
  const body =
    step.body === undefined
      ? ''
      : ` body ${shorten(
          step.body
            .map((piece) =>
              typeof piece === 'string'
                ? visible(piece)
                : isByte(piece)
                  ? `\\x${piece.byte.toString(16).toUpperCase().padStart(2, '0')}`
                  : name(piece),
            )
            .join(''),
        )}`
  return `${step.method} ${path}${headers === '' ? '' : ` [${headers}]`}${body}`
}

/** Control characters, line and paragraph separators, and lone surrogates as `<U+0000>`. */
function visible(text: string): string {
  let result = ''
  for (let at = 0; at < text.length; at += 1) {
    const unit = text.charCodeAt(at)
    const next = text.charCodeAt(at + 1)
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      result += text.slice(at, at + 2)
      at += 1
    } else if (
      unit < 0x20 ||
      (unit >= 0x7f && unit <= 0x9f) ||
      unit === 0x2028 ||
      unit === 0x2029 ||
      (unit >= 0xd800 && unit <= 0xdfff)
    ) {
      result += `<U+${unit.toString(16).toUpperCase().padStart(4, '0')}>`
    } else {
      result += text[at]
    }
  }
  return result
}

/** Long runs of one character as `a×2000`, and at most 400 characters in all. */
function shorten(text: string): string {
  const folded = text.replace(/(.)\1{19,}/gsu, (run, char: string) => `${char}×${[...run].length}`)
  return folded.length > 400 ? `${folded.slice(0, 400)}…` : folded
}
