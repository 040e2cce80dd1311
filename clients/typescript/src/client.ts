/**
 * A typed client of the Todo and Member API, on openapi-fetch and the types generated
 * from the service's OpenAPI document (schema.ts, `npm run client:generate`).
 *
 * `createApiClient(...)` gives both the raw openapi-fetch client (`api.raw.GET(...)`,
 * every path and method of the document, typed) and thin helpers for what the raw calls
 * make awkward: ETags and If-Match, Idempotency-Key and its replay flag, the paged or
 * unpaged member search, and failures, which the helpers throw as `ApiError`.
 */
import createClient, { type Client, type RequestBodyOption } from 'openapi-fetch'
import type { components, paths } from './schema.js'

// ---- types ------------------------------------------------------------------------------

type Schemas = components['schemas']

/**
 * The JSON body one operation takes, as openapi-fetch types it: the component schema
 * (TodoCreate, MemberCreate, MemberUpdate) without the fields a client may only omit
 * (those the service sets, typed `null` in the document: openapi-fetch's Writable<>
 * turns them into `?: never`, so the component type itself would not be accepted).
 */
type RequestJson<Path extends keyof paths, M extends 'post' | 'put'> = NonNullable<
  RequestBodyOption<paths[Path][M]>['body']
>

export type Todo = Schemas['Todo']
export type Member = Schemas['Member']
export type MemberPage = Schemas['MemberPage']
export type ApiErrorBody = Schemas['ApiError']
/** components.schemas.TodoCreate, as a request body. */
export type TodoCreate = RequestJson<'/api/v1/todos', 'post'>
/** components.schemas.MemberCreate, as a request body. */
export type MemberCreate = RequestJson<'/api/v1/members', 'post'>
/** components.schemas.MemberUpdate, as a request body. */
export type MemberUpdate = RequestJson<'/api/v1/members/{memberId}', 'put'>

type SearchQuery = paths['/api/v1/members']['get']['parameters']['query']
/** Search by name prefix, one page of it (`page`, `size`, `sort`). */
export type SearchMembersParams = Omit<SearchQuery, 'unpaged'>
/** Search by name prefix, every match in one array (`sort` applies; no paging). */
export type SearchAllMembersParams = Omit<SearchQuery, 'unpaged' | 'page' | 'size'>

/** The raw openapi-fetch client: every operation of the document, by path. */
export type RawClient = Client<paths>

export interface ApiClientOptions {
  /** Where the service is, e.g. `http://localhost:8080` (the paths carry /api/v1). */
  readonly baseUrl: string
  /** A fetch of your own (tests, proxies, retries); the global fetch when absent. */
  readonly fetch?: (input: Request) => Promise<Response>
  /** Headers sent with every request. */
  readonly headers?: Record<string, string>
  /** The language of error messages (the service knows en and ja). */
  readonly acceptLanguage?: string
}

/** A resource with the validator that names its version (send it back as If-Match). */
export interface Versioned {
  readonly etag: string
}

/** What a create answers besides the resource itself. */
export interface CreatedInfo extends Versioned {
  /** The new resource's URL (the Location header). */
  readonly location: string
  /** true when the service replayed an earlier answer to the same Idempotency-Key. */
  readonly replayed: boolean
}

export interface CreateOptions {
  /** Makes the create safe to retry: the same key and body within 24 hours create once. */
  readonly idempotencyKey?: string
}

export interface ConditionalOptions {
  /** The ETag last read: the change is made only if the resource is still that version. */
  readonly etag?: string
}

// ---- errors -----------------------------------------------------------------------------

/**
 * Every non-2xx answer, thrown by the helpers: the HTTP status, the ApiError body's code,
 * message (in the Accept-Language locale), target and details, and the X-Track id that
 * finds the request in the service's logs.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly status: number
  readonly code: string
  readonly target: string | undefined
  readonly details: readonly ApiErrorBody[]
  /** The request's id (X-Track), for the service's logs; undefined if it sent none. */
  readonly trackId: string | undefined

  constructor(status: number, body: ApiErrorBody, trackId: string | undefined) {
    super(body.message)
    this.status = status
    this.code = body.code
    this.target = body.target
    this.details = body.details ?? []
    this.trackId = trackId
  }

  /** An ApiError from a failed response and the body openapi-fetch read from it. */
  static from(response: Response, body: unknown): ApiError {
    const trackId = response.headers.get('x-track') ?? undefined
    if (isApiErrorBody(body)) return new ApiError(response.status, body, trackId)
    // Not the service's error format (a proxy's page, an empty 404): keep what there is.
    const text = typeof body === 'string' && body !== '' ? body : response.statusText
    return new ApiError(
      response.status,
      { code: `http.${response.status}`, message: text || `HTTP ${response.status}` },
      trackId,
    )
  }
}

function isApiErrorBody(body: unknown): body is ApiErrorBody {
  if (typeof body !== 'object' || body === null) return false
  const { code, message } = body as Record<string, unknown>
  return typeof code === 'string' && typeof message === 'string'
}

interface FetchResult<T> {
  readonly data?: T
  readonly error?: unknown
  readonly response: Response
}

/** The body of a 2xx answer, or the ApiError of any other. */
function ok<T>(result: FetchResult<T>): { data: T; response: Response } {
  const { response } = result
  if (!response.ok) throw ApiError.from(response, result.error)
  return { data: result.data as T, response }
}

function header(response: Response, name: string): string {
  const value = response.headers.get(name)
  if (value === null) {
    throw new Error(`${response.url}: the ${response.status} answer has no ${name} header`)
  }
  return value
}

function created(response: Response): CreatedInfo {
  return {
    location: header(response, 'location'),
    etag: header(response, 'etag'),
    replayed: response.headers.get('idempotent-replayed') === 'true',
  }
}

function idempotencyHeaders(options: CreateOptions): Record<string, string> {
  return options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey }
}

function ifMatch(etag: string | undefined): Record<string, string> {
  return etag === undefined ? {} : { 'If-Match': etag }
}

/**
 * An update body that keeps the member's profile as it is, with `changes` on top. (The
 * credential and the timestamps of a Member are not sent back: an update must leave
 * them out.)
 */
export function memberUpdateFrom(
  member: Member,
  changes: Partial<MemberUpdate> = {},
): MemberUpdate {
  return {
    memberId: member.memberId,
    firstName: member.firstName,
    lastName: member.lastName,
    genderCode: member.genderCode,
    dateOfBirth: member.dateOfBirth,
    emailAddress: member.emailAddress,
    telephoneNumber: member.telephoneNumber,
    zipCode: member.zipCode,
    address: member.address,
    ...changes,
  }
}

// ---- the client -------------------------------------------------------------------------

export function createApiClient(options: ApiClientOptions) {
  const raw: RawClient = createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.fetch && { fetch: options.fetch }),
    headers: {
      ...options.headers,
      ...(options.acceptLanguage !== undefined && { 'Accept-Language': options.acceptLanguage }),
    },
  })
  const todoPath = (todoId: string) => ({ params: { path: { todoId } } })
  const memberPath = (memberId: string) => ({ params: { path: { memberId } } })

  return {
    /** The openapi-fetch client, for anything the helpers do not cover. */
    raw,

    // -- todos

    /** Every Todo, oldest first. */
    async listTodos(): Promise<Todo[]> {
      return ok(await raw.GET('/api/v1/todos')).data
    },

    /** A new open Todo. With an idempotency key, a retry answers the first result again. */
    async createTodo(
      body: TodoCreate,
      create: CreateOptions = {},
    ): Promise<{ todo: Todo } & CreatedInfo> {
      const { data, response } = ok(
        await raw.POST('/api/v1/todos', { body, headers: idempotencyHeaders(create) }),
      )
      return { todo: data, ...created(response) }
    },

    async getTodo(todoId: string): Promise<{ todo: Todo } & Versioned> {
      const { data, response } = ok(await raw.GET('/api/v1/todos/{todoId}', todoPath(todoId)))
      return { todo: data, etag: header(response, 'etag') }
    },

    /** Marks the Todo finished (409 e.ex.td.8001 if it already is; 412 on a stale etag). */
    async finishTodo(
      todoId: string,
      conditional: ConditionalOptions = {},
    ): Promise<{ todo: Todo } & Versioned> {
      const { data, response } = ok(
        await raw.PUT('/api/v1/todos/{todoId}', {
          ...todoPath(todoId),
          headers: ifMatch(conditional.etag),
        }),
      )
      return { todo: data, etag: header(response, 'etag') }
    },

    async deleteTodo(todoId: string, conditional: ConditionalOptions = {}): Promise<void> {
      ok(
        await raw.DELETE('/api/v1/todos/{todoId}', {
          ...todoPath(todoId),
          headers: ifMatch(conditional.etag),
        }),
      )
    },

    // -- members

    /** One page of the members whose first or last name starts with `name`. */
    async searchMembers(params: SearchMembersParams): Promise<MemberPage> {
      const { data } = ok(
        await raw.GET('/api/v1/members', { params: { query: { ...params, unpaged: false } } }),
      )
      if (Array.isArray(data)) throw new Error('searchMembers: the service answered an array')
      return data
    },

    /** Every member whose first or last name starts with `name` (at most 1,000), unpaged. */
    async searchAllMembers(params: SearchAllMembersParams): Promise<Member[]> {
      const { data } = ok(
        await raw.GET('/api/v1/members', { params: { query: { ...params, unpaged: true } } }),
      )
      if (!Array.isArray(data)) throw new Error('searchAllMembers: the service answered a page')
      return data
    },

    /** A new member and its credential. With an idempotency key, a retry replays the first answer. */
    async createMember(
      body: MemberCreate,
      create: CreateOptions = {},
    ): Promise<{ member: Member } & CreatedInfo> {
      const { data, response } = ok(
        await raw.POST('/api/v1/members', { body, headers: idempotencyHeaders(create) }),
      )
      return { member: data, ...created(response) }
    },

    async getMember(memberId: string): Promise<{ member: Member } & Versioned> {
      const { data, response } = ok(
        await raw.GET('/api/v1/members/{memberId}', memberPath(memberId)),
      )
      return { member: data, etag: header(response, 'etag') }
    },

    /**
     * Overwrites the profile if the member is still the version `etag` names (from
     * getMember or a previous update); 412 e.ex.fw.8002 if someone changed it since.
     */
    async updateMember(
      memberId: string,
      body: MemberUpdate,
      conditional: Versioned,
    ): Promise<{ member: Member } & Versioned> {
      const { data, response } = ok(
        await raw.PUT('/api/v1/members/{memberId}', {
          ...memberPath(memberId),
          body,
          headers: ifMatch(conditional.etag),
        }),
      )
      return { member: data, etag: header(response, 'etag') }
    },

    async deleteMember(memberId: string, conditional: ConditionalOptions = {}): Promise<void> {
      ok(
        await raw.DELETE('/api/v1/members/{memberId}', {
          ...memberPath(memberId),
          headers: ifMatch(conditional.etag),
        }),
      )
    },
  }
}

export type ApiClient = ReturnType<typeof createApiClient>
