/**
 * The checks an experiment's create and update both make (experiments.writes.ts), by PostHog's
 * rules: `saved_metrics_ids`, the holdout, `exposure_criteria`, the dates; the metric lists as the
 * request wrote them, with their fingerprints; and the other domains' services an experiment write
 * calls. Source: `ee/clickhouse/views/experiments.py` (`ExperimentSerializer.validate_*`),
 * `experiment_metric_fingerprint.py`; posthog-behavior.md §5.3–5.4.
 */
import type { ServiceContext } from "../core/context.js";
import { ValidationError } from "../core/errors.js";
import { jsonSourceText } from "../core/json-input.js";
import type { FeatureFlagService } from "../feature-flags/feature-flags.service.js";
import { findHoldout, selectSavedMetricQueries } from "./experiments.store.js";
import { computeMetricFingerprint, type JsonWithNumbers, parseJsonNumbers } from "./rules/fingerprint.js";
import { isObject, type Obj } from "./rules/flag-variants.js";

/** The other domains' services an experiment write calls. */
export interface ExperimentWriteCollaborators {
  /** Creates a new experiment's flag, rewrites a draft's flag filters, turns a launched one's flag on. */
  featureFlags: Pick<
    FeatureFlagService,
    "createAuthorized" | "updateFiltersAuthorized" | "activateAuthorized"
  >;
}

/**
 * `saved_metrics_ids` (validate_saved_metrics_ids): a list of `{id, metadata?: {type}}` naming saved
 * metrics of the project; each returned with its saved metric's `query` (for the metric order).
 * @throws ValidationError attr `saved_metrics_ids`.
 */
export async function checkSavedMetricIds(
  ctx: ServiceContext,
  projectId: number,
  value: unknown[] | null | undefined,
): Promise<Array<{ id: number; metadata: unknown; query: unknown }> | null> {
  if (value === null || value === undefined) return null;
  const attr = "saved_metrics_ids";
  const items: Array<{ id: number; metadata: unknown }> = [];
  for (const item of value) {
    if (!isObject(item)) throw new ValidationError("Saved metric must be an object", { attr });
    if (!("id" in item)) throw new ValidationError("Saved metric must have an id", { attr });
    if ("metadata" in item && !isObject(item["metadata"])) {
      throw new ValidationError("Metadata must be an object", { attr });
    }
    if ("metadata" in item && !("type" in (item["metadata"] as Obj))) {
      throw new ValidationError("Metadata must have a type key", { attr });
    }
    const id = item["id"];
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) {
      throw new ValidationError("Saved metric does not exist or does not belong to this project", { attr });
    }
    items.push({ id, metadata: item["metadata"] ?? null });
  }
  const ids = [...new Set(items.map((i) => i.id))];
  const found = await selectSavedMetricQueries(ctx.db, projectId, ids);
  if (found.length !== ids.length) {
    throw new ValidationError("Saved metric does not exist or does not belong to this project", { attr });
  }
  const queries = new Map(found.map((m) => [m.id, m.query]));
  return items.map((item) => ({ ...item, query: queries.get(item.id) }));
}

/** The holdout `id` of the project, or null. @throws ValidationError attr `holdout_id` (DRF's does_not_exist). */
export async function checkedHoldout(ctx: ServiceContext, projectId: number, id: number | null | undefined) {
  if (id === null || id === undefined) return null;
  const holdout = await findHoldout(ctx.db, projectId, id);
  if (!holdout) {
    throw new ValidationError(`Invalid pk "${id}" - object does not exist.`, {
      attr: "holdout_id",
      code: "does_not_exist",
    });
  }
  return holdout;
}

/** `exposure_criteria` (§5.3): `filterTestAccounts` boolean, `exposure_config` an event config or ActionsNode. */
export function checkExposureCriteria(value: unknown): void {
  if (value === null || value === undefined) return;
  const attr = "exposure_criteria";
  if (!isObject(value)) throw new ValidationError("Invalid exposure criteria", { attr });
  if ("filterTestAccounts" in value && typeof value["filterTestAccounts"] !== "boolean") {
    throw new ValidationError("filterTestAccounts must be a boolean", { attr });
  }
  const config = value["exposure_config"];
  if (config !== undefined && config !== null) {
    const ok =
      isObject(config) &&
      ((config["kind"] === "ExperimentEventExposureConfig" && typeof config["event"] === "string") ||
        (config["kind"] === "ActionsNode" && typeof config["id"] === "number"));
    if (!ok) throw new ValidationError("Invalid exposure criteria", { attr });
  }
}

/** Dates: end after start when both are set (§5.3). */
export function checkDates(start: Date | null | undefined, end: Date | null | undefined): void {
  if (start && end && start.getTime() >= end.getTime()) {
    throw new ValidationError("End date must be after start date");
  }
}

/**
 * The metric lists of a request as number-keeping JSON (see rules/fingerprint.ts): from the body's
 * own text when it came as JSON, else from the parsed values.
 */
export function requestMetrics(
  body: unknown,
  field: "metrics" | "metrics_secondary",
): JsonWithNumbers | undefined {
  const text = jsonSourceText(body);
  if (text !== undefined) {
    const parsed = parseJsonNumbers(text);
    if (isObject(parsed)) return parsed[field] as JsonWithNumbers | undefined;
  }
  return isObject(body) ? (body[field] as JsonWithNumbers | undefined) : undefined;
}

/**
 * Sets each metric's `fingerprint` (§5.3, `experiment_metric_fingerprint.py`) from the experiment's
 * start date, stats config and exposure criteria. A list that is not a list is refused.
 * @throws ValidationError attr `metrics`/`metrics_secondary` for a non-list or a non-object metric.
 */
export function withFingerprints(
  metrics: JsonWithNumbers | undefined | null,
  attr: string,
  startDate: Date | null,
  statsConfig: unknown,
  exposureCriteria: unknown,
): JsonWithNumbers[] {
  if (metrics === undefined || metrics === null) return [];
  if (!Array.isArray(metrics)) throw new ValidationError("Metrics must be a list", { attr });
  return metrics.map((metric) => {
    if (!isObject(metric)) throw new ValidationError("Metrics must be objects", { attr });
    const fingerprint = computeMetricFingerprint(metric, startDate, statsConfig, exposureCriteria);
    return { ...(metric as { [key: string]: JsonWithNumbers }), fingerprint };
  });
}
