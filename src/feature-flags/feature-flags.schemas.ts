/**
 * Inputs of the feature-flag operations, in PostHog's field names (the REST contract; GraphQL maps
 * its camelCase inputs onto these). One schema per intent: create, update, list filters.
 * Read-only fields in a body (`id`, `created_by`, `status`, ...) and unknown fields are ignored, as DRF does.
 * Source: `posthog/api/feature_flag.py` FeatureFlagSerializer; posthog-behavior.md §2.2–2.5, §2.7.
 */
import { z } from "zod";
import { drf } from "../core/validation.js";

/** Values of `evaluation_runtime`. */
export const EVALUATION_RUNTIMES = ["server", "client", "all"] as const;
/** Values of `bucketing_identifier`. */
export const BUCKETING_IDENTIFIERS = ["distinct_id", "device_id"] as const;
/** Values of `creation_context` (write-only in PostHog; stored here). */
export const CREATION_CONTEXTS = [
  "feature_flags",
  "experiments",
  "surveys",
  "early_access_features",
  "web_experiments",
  "product_tours",
] as const;

/** Longest flag key (PostHog `CharField(max_length=400)`). */
export const FLAG_KEY_MAX_LENGTH = 400;

const writableFields = {
  /** The flag's description; blank allowed. */
  name: drf.string(),
  key: drf.string({ maxLength: FLAG_KEY_MAX_LENGTH }),
  /** PostHog's filters object; its structure is validated by rules/filters.ts. */
  filters: z.record(z.string(), z.unknown()),
  active: drf.boolean(),
  deleted: drf.boolean(),
  /** On update: the version the caller last read; a stale one is a conflict (§2.7). */
  version: drf.integer(),
  ensure_experience_continuity: drf.boolean().nullable(),
  rollback_conditions: z.unknown(),
  performed_rollback: drf.boolean().nullable(),
  tags: z.array(drf.string()),
  evaluation_tags: z.array(drf.string()),
  analytics_dashboards: z.array(drf.integer()),
  has_enriched_analytics: drf.boolean().nullable(),
  is_remote_configuration: drf.boolean().nullable(),
  has_encrypted_payloads: drf.boolean().nullable(),
  evaluation_runtime: drf.choice(EVALUATION_RUNTIMES),
  bucketing_identifier: drf.choice(BUCKETING_IDENTIFIERS),
  creation_context: drf.choice(CREATION_CONTEXTS),
  _create_in_folder: drf.string(),
  _should_create_usage_dashboard: drf.boolean(),
};

/** `POST feature_flags/`: `key` required, everything else optional. */
export const createFlagSchema = z.object({
  ...Object.fromEntries(Object.entries(writableFields).map(([k, v]) => [k, v.optional()])),
  key: writableFields.key,
}) as z.ZodType<CreateFlagInput>;

/** `PATCH feature_flags/:id/`: every field optional; absent keeps, a value sets. */
export const updateFlagSchema = z.object(
  Object.fromEntries(Object.entries(writableFields).map(([k, v]) => [k, v.optional()])),
) as z.ZodType<UpdateFlagInput>;

type Writable = { [K in keyof typeof writableFields]: z.output<(typeof writableFields)[K]> };

/** A validated create body. */
export type CreateFlagInput = Partial<Writable> & { key: string };
/** A validated update body. */
export type UpdateFlagInput = Partial<Writable>;

/** List ordering: PostHog's `?order=` (a Django order_by) limited to the fields that make sense. */
export const FLAG_ORDERS = [
  "created_at",
  "-created_at",
  "updated_at",
  "-updated_at",
  "key",
  "-key",
  "name",
  "-name",
] as const;
/** One `FLAG_ORDERS` value. */
export type FlagOrder = (typeof FLAG_ORDERS)[number];

/** Filters of the flag list (spec row 1, posthog-behavior.md §2.3). Unset fields do not filter. */
export interface FlagListFilters {
  /** `true`/`false`: exact `active`; `STALE`: active flags not called (or fully rolled out) for 30 days. */
  active?: boolean | "STALE";
  createdById?: number;
  evaluationRuntime?: (typeof EVALUATION_RUNTIMES)[number];
  /** Keys to leave out. */
  excludedKeys?: string[];
  /** `true`: at least one evaluation tag; `false`: none. */
  hasEvaluationTags?: boolean;
  /** Case-insensitive substring of `key` or `name`. */
  search?: string;
  /** Flags having any of these tags. */
  tags?: string[];
  type?: "boolean" | "multivariant" | "experiment" | "remote_config";
  order?: FlagOrder;
}
