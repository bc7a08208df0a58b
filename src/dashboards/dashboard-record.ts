/**
 * What a dashboard is as every reader sees it (the dashboards service, both doors, a flag's usage
 * dashboard). Types only.
 */
import type { UserBasic } from "../core/records.js";
import type { Prisma } from "../generated/prisma/client.js";

/**
 * A dashboard as both doors show it (PostHog's `DashboardBasicSerializer` fields this service has;
 * read by src/dashboards/dashboards.service.ts).
 */
export interface DashboardRecord {
  id: number;
  projectId: number;
  name: string | null;
  description: string;
  pinned: boolean;
  /** PostHog's `creation_mode`: `default`, `template` or `duplicate`. */
  creationMode: string;
  /** Stored dashboard filters (`{"date_from": "-30d"}`, ...). */
  filters: Prisma.JsonValue;
  createdBy: UserBasic | null;
  createdAt: Date;
  deleted: boolean;
  /** Tag names, sorted. */
  tags: string[];
}
