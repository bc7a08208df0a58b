/**
 * How endpoints are kept: every write of the endpoint tables (the endpoint's row, its versions) and
 * every read a write decides from (the endpoint's row locked for a write). The service says what
 * happens (endpoints.service.ts, endpoints.writes.ts); this module says how it is stored. Reads that
 * answer callers are the read model's (endpoints.queries.ts); a version's materialization is stored by
 * materialization/materialization.store.ts.
 *
 * Invariant: every statement filters by `project_id` or by a row id read under it; a write takes the
 * transaction it belongs to (`tx`), never the client.
 */
import { lockAndRead } from "../core/row-lock.js";
import type { Prisma } from "../generated/prisma/client.js";
import { type EndpointRecord, readEndpoint } from "./endpoints.queries.js";

/** A new version's fields: its number, its query node (as given), its description and cache age. */
export interface NewVersion {
  version: number;
  query: Record<string, unknown>;
  description: string;
  /** Seconds a cached result stays fresh; null for the default. */
  cacheAgeSeconds: number | null;
}

/** The fields an update applies to every version of an endpoint; an absent one is left as it is. */
export interface SharedVersionFields {
  description?: string;
  cacheAgeSeconds?: number | null;
}

/**
 * Locks endpoint `id`'s row in `tx` (core/row-lock.ts, PostHog's `select_for_update`) and reads it:
 * the writers of one endpoint take turns from here until their transactions end.
 * @throws NotFoundError
 */
export function lockEndpoint(
  tx: Prisma.TransactionClient,
  projectId: number,
  id: string,
): Promise<EndpointRecord> {
  return lockAndRead(tx, "endpoints", id, () => readEndpoint(tx, projectId, { id }));
}

/**
 * Inserts endpoint `endpoint.name` of the project (current version 1, which the caller inserts with
 * `insertVersion`), created by `userId` at `now`. Returns its UUID.
 * @throws Prisma's P2002 when the project has an endpoint of that name.
 */
export function insertEndpoint(
  tx: Prisma.TransactionClient,
  projectId: number,
  endpoint: { name: string; isActive: boolean; derivedFromInsight: string | null },
  userId: number,
  now: Date,
): Promise<{ id: string }> {
  return tx.endpoint.create({
    data: {
      projectId,
      name: endpoint.name,
      isActive: endpoint.isActive,
      currentVersion: 1,
      derivedFromInsight: endpoint.derivedFromInsight,
      createdById: userId,
      createdAt: now,
      updatedAt: now,
    },
    select: { id: true },
  });
}

/**
 * Inserts `version` of endpoint `endpointId` (not materialized), created by `userId` at `now`. Returns
 * its UUID. @throws Prisma's P2002 when the endpoint has a version of that number.
 */
export function insertVersion(
  tx: Prisma.TransactionClient,
  projectId: number,
  endpointId: string,
  version: NewVersion,
  userId: number,
  now: Date,
): Promise<{ id: string }> {
  return tx.endpointVersion.create({
    select: { id: true },
    data: {
      projectId,
      endpointId,
      version: version.version,
      query: version.query as Prisma.InputJsonValue,
      description: version.description,
      cacheAgeSeconds: version.cacheAgeSeconds,
      isMaterialized: false,
      createdById: userId,
      createdAt: now,
    },
  });
}

/** Writes `fields` over every version of endpoint `endpointId`. */
export async function updateAllVersions(
  tx: Prisma.TransactionClient,
  endpointId: string,
  fields: SharedVersionFields,
): Promise<void> {
  await tx.endpointVersion.updateMany({ where: { endpointId }, data: fields });
}

/**
 * Writes `fields` (an absent one is left as it is) over endpoint `id`'s row, locked in `tx`, updated
 * at `now`.
 */
export async function updateEndpointRow(
  tx: Prisma.TransactionClient,
  id: string,
  fields: { isActive?: boolean; currentVersion?: number },
  now: Date,
): Promise<void> {
  await tx.endpoint.update({ where: { id }, data: { ...fields, updatedAt: now } });
}

/** Sets version `versionId`'s `is_active`. */
export async function setVersionIsActive(
  tx: Prisma.TransactionClient,
  versionId: string,
  isActive: boolean,
): Promise<void> {
  await tx.endpointVersion.update({ where: { id: versionId }, data: { isActive } });
}

/** Removes endpoint `id`'s row; its versions go with it (cascade). */
export async function deleteEndpointRow(tx: Prisma.TransactionClient, id: string): Promise<void> {
  await tx.endpoint.delete({ where: { id } });
}
