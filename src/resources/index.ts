import { catalogueOf } from '../api/errors/catalogue.js'
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

/**
 * Every schema version of the database: the service's own and each resource's, in order;
 * two with one number stop the service from starting.
 */
export const MIGRATIONS = migrationsOf(RESOURCES)

/**
 * Every answer the service can give, by code: its own and each resource's. Made when the
 * service loads, so that two resources claiming one code stop it from starting.
 */
export const ANSWERS = catalogueOf(RESOURCES)
