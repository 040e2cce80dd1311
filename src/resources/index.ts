import { migrationsOf } from '../infra/db/migrate.js'
import type { ResourceModule } from '../platform/resource-module.js'
import { memberResource } from './member/index.js'
import { todoResource } from './todo/index.js'

/**
 * Every resource of the API, in the order of the OpenAPI document's tags. A resource
 * is its folder and its entry here; docs/architecture.md lists what else it brings.
 */
export const RESOURCES = [todoResource, memberResource] as const satisfies readonly ResourceModule[]

/** `todo`, `member`: the name of each resource, as its domain errors say it. */
export type ResourceName = (typeof RESOURCES)[number]['name']

/** Every schema version of the database: the service's own and each resource's, in order. */
export const MIGRATIONS = migrationsOf(RESOURCES)
