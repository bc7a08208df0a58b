/**
 * The service registry both front doors are handed. It is open: each domain adds its own service by
 * declaration merging in its `*.service.ts`, so the doors (`rest/`, `graphql/`) and the core import
 * no domain, and a new domain edits nothing here:
 *
 * ```ts
 * declare module "../core/services.js" {
 *   interface Services { featureFlags: FeatureFlagService }
 * }
 * ```
 *
 * The composition root (src/composition.ts) builds one object of this type per process.
 */
import type { ClickHouseClient } from "@clickhouse/client";
import type { Config } from "../config.js";
import type { DataAccess } from "./context.js";

/** Every domain service, by name; filled in by the domains (see the module comment). */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging from each domain
export interface Services {}

/** Collaborators every service shares; `now` is the clock (injectable for staleness tests). */
export interface ServiceDeps {
  now: () => Date;
  /** The process's configuration (settings a service's behaviour depends on, such as `skipCatalogueUpdates`). */
  config: Config;
  /**
   * The database, for services that read outside a request's context (per-process caches such as
   * the flag definitions); absent where services are built only to list routes (OpenAPI), where
   * such a service throws when used. Request-scoped reads use `ServiceContext` instead.
   */
  data?: DataAccess;
  /**
   * The ClickHouse analytics store (issue 30), when events live there: capture writes events and
   * mirrors persons to it (src/analytics/clickhouse/). Absent: events stay in PostgreSQL.
   */
  clickhouse?: ClickHouseClient;
}

/**
 * `deps.data`, for a service that reads outside a request's context when it is used.
 * @throws Error naming `service` when the services were built without a database (route tables
 *   built for documentation only: see `ServiceDeps.data`).
 */
export function databaseOf(deps: ServiceDeps, service: string): DataAccess {
  if (!deps.data) throw new Error(`the ${service} was built without a database`);
  return deps.data;
}
