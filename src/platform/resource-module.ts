import type { FastifyInstance } from 'fastify'
import type { TSchema } from 'typebox'
import type { ResourceErrors } from '../api/errors/catalogue.js'
import type { Config } from '../config/settings.js'
import type { UnitOfWork } from '../domain/common/unit-of-work.js'
import type { IdempotencyScope } from '../domain/idempotency/service.js'
import type { Database } from '../infra/db/create-database.js'
import type { Migrations } from '../infra/db/migrate.js'
import type { Transactional } from '../infra/db/unit-of-work.js'
import type { Bulkhead } from '../infra/work/bulkhead.js'

/** The kinds of expensive work an instance admits in bounded numbers (decisions §9). */
export interface Bulkheads {
  readonly searches: Bulkhead
  readonly todoLists: Bulkhead
  readonly hashing: Bulkhead
}

/** What every resource shares, given to it when the application installs it. */
export interface Platform {
  readonly config: Config
  readonly database: Database
  readonly work: Bulkheads
  readonly now: () => Date
  /**
   * Transactions over the given repositories and the service's own (the Idempotency-Key
   * outcomes), which commit or roll back together.
   */
  unitOfWork<Scope extends object>(
    repositories: Transactional<Scope>,
  ): UnitOfWork<Scope & IdempotencyScope>
}

/** A tag of the OpenAPI document: the operations of one resource. */
export interface OpenApiTag {
  readonly name: string
  readonly description: string
}

/**
 * One resource of the API (Todo, Member, …): a folder under src/resources/ that holds its
 * routes, schemas and mapper (api/), its model, rules and repository interface (domain/),
 * its repository, tables and migrations (infra/), and exports one of these, listed in
 * resources/index.ts. The application, the migrator, the error handling, the scopes and
 * the OpenAPI document take what they need of each from that list.
 */
export interface ResourceModule {
  /** As its domain errors name it (`ResourceNotFoundError('todo', id)`). */
  readonly name: string
  /** Its operations' tag in the OpenAPI document; every route of the resource names it. */
  readonly tag: OpenApiTag
  /** The bearer token scopes its routes declare, each with what it grants. */
  readonly scopes: Readonly<Record<string, string>>
  /** Its error codes, and which of them answer its domain errors. */
  readonly errors: ResourceErrors
  /** Its tables' migrations, by name: a name starts with the next number free in the whole service. */
  readonly migrations: Migrations
  /** The schemas the OpenAPI document names as components. */
  readonly schemas: (config: Config) => readonly TSchema[]
  /** Builds its repositories and services on the platform and registers its routes. */
  readonly install: (api: FastifyInstance, platform: Platform) => Promise<void>
}
