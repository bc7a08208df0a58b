/**
 * The display order of an experiment's metrics (`primary_metrics_ordered_uuids`,
 * `secondary_metrics_ordered_uuids`) kept in step with its metrics, as PostHog's ExperimentSerializer
 * does (`create`, `update`, `_sync_ordering_with_metric_changes`, `_sync_ordering_for_saved_metrics`,
 * `_validate_metric_ordering` in ee/clickhouse/views/experiments.py):
 * - a metric added (inline, or a saved metric linked) has its uuid appended unless already listed;
 * - a metric removed has its uuid dropped;
 * - after that, every metric uuid of a list must be in that list's order, or the write is refused.
 * Metrics without a `uuid` take no part. Saved metrics count as primary unless their link's
 * `metadata.type` says otherwise, as PostHog's.
 * PostHog appends the added uuids in set order (arbitrary); here they keep the metrics' order.
 */
import { ValidationError } from "../../core/errors.js";

/** A saved-metric link as the rule reads it: the saved metric's `query` and the link's `metadata`. */
export interface SavedMetricLinkUuid {
  query: unknown;
  metadata: unknown;
}

/** Which of an experiment's metric lists. */
export type MetricList = "primary" | "secondary";

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The `uuid`s of a metric list, in its order (metrics without a non-empty string uuid skipped). */
export function metricUuids(metrics: unknown): string[] {
  if (!Array.isArray(metrics)) return [];
  return metrics.flatMap((metric) =>
    isObject(metric) && typeof metric["uuid"] === "string" && metric["uuid"] !== "" ? [metric["uuid"]] : [],
  );
}

/** The uuids of the saved metrics linked as `list` (a link's `metadata.type`, default primary). */
export function savedMetricUuids(links: readonly SavedMetricLinkUuid[], list: MetricList): string[] {
  return links.flatMap((link) => {
    const uuid = isObject(link.query) ? link.query["uuid"] : undefined;
    if (typeof uuid !== "string" || uuid === "") return [];
    const type = isObject(link.metadata) ? (link.metadata["type"] ?? "primary") : "primary";
    return (type === "primary" ? "primary" : "secondary") === list ? [uuid] : [];
  });
}

/**
 * `ordering` after the metrics went from `before` to `after`: the removed uuids dropped, the added
 * ones appended (once). Unchanged (the same value, null included) when nothing was added or removed.
 */
export function syncOrdering(
  ordering: readonly string[] | null,
  before: readonly string[],
  after: readonly string[],
): string[] | null {
  const removed = new Set(before.filter((uuid) => !after.includes(uuid)));
  const added = after.filter((uuid) => !before.includes(uuid));
  if (removed.size === 0 && added.length === 0) return ordering === null ? null : [...ordering];
  const next = (ordering ?? []).filter((uuid) => !removed.has(uuid));
  for (const uuid of added) if (!next.includes(uuid)) next.push(uuid);
  return next;
}

/**
 * Refuses an order that misses a metric of its list (`_validate_metric_ordering`).
 * @throws ValidationError (no attr) naming the list and the missing uuids, PostHog's messages.
 */
export function checkOrdering(
  list: MetricList,
  ordering: readonly string[] | null,
  expected: readonly string[],
) {
  if (expected.length === 0) return;
  const field = `${list}_metrics_ordered_uuids`;
  if (ordering === null) {
    throw new ValidationError(
      `${field} is null but ${list} metrics exist. This is likely a frontend bug - please refresh and try again.`,
    );
  }
  const missing = [...new Set(expected.filter((uuid) => !ordering.includes(uuid)))].sort();
  if (missing.length > 0) {
    throw new ValidationError(
      `${field} is missing UUIDs: [${missing.map((uuid) => `'${uuid}'`).join(", ")}]. This is likely a frontend bug - please refresh and try again.`,
    );
  }
}

/** Both lists' display orders. */
export interface MetricOrdering {
  primary: string[] | null;
  secondary: string[] | null;
}

/** `ordering` with each of `uuids` appended unless already there. */
function appendMissing(ordering: readonly string[] | null, uuids: readonly string[]): string[] {
  const next = [...(ordering ?? [])];
  for (const uuid of uuids) if (!next.includes(uuid)) next.push(uuid);
  return next;
}

/**
 * The orders a new experiment stores (PostHog's `create`): when a metric list is given, its order
 * becomes the requested one (or []) with the list's uuids appended; linked saved metrics append
 * theirs to both orders (null becoming []) when any was missing. Then every uuid must be listed.
 * `primaryMetrics`/`secondaryMetrics` undefined: the body did not carry that list.
 * @throws ValidationError when an order still misses a metric (see `checkOrdering`).
 */
export function orderingOnCreate(args: {
  requested: MetricOrdering;
  primaryMetrics: unknown;
  secondaryMetrics: unknown;
  savedLinks: readonly SavedMetricLinkUuid[];
}): MetricOrdering {
  let primary =
    args.primaryMetrics === undefined
      ? args.requested.primary
      : appendMissing(args.requested.primary, metricUuids(args.primaryMetrics));
  let secondary =
    args.secondaryMetrics === undefined
      ? args.requested.secondary
      : appendMissing(args.requested.secondary, metricUuids(args.secondaryMetrics));
  const savedPrimary = savedMetricUuids(args.savedLinks, "primary");
  const savedSecondary = savedMetricUuids(args.savedLinks, "secondary");
  const missing = [
    ...savedPrimary.filter((uuid) => !(primary ?? []).includes(uuid)),
    ...savedSecondary.filter((uuid) => !(secondary ?? []).includes(uuid)),
  ];
  if (missing.length > 0) {
    primary = appendMissing(primary, savedPrimary);
    secondary = appendMissing(secondary, savedSecondary);
  }
  checkOrdering("primary", primary, [...metricUuids(args.primaryMetrics), ...savedPrimary]);
  checkOrdering("secondary", secondary, [...metricUuids(args.secondaryMetrics), ...savedSecondary]);
  return { primary, secondary };
}

/**
 * The orders an updated experiment stores (PostHog's `update`): from the requested order where the
 * body gave one, else the stored one; inline metrics added or removed by the body, then saved
 * metrics linked or unlinked by it, are appended or dropped; then every uuid of the resulting
 * metrics must be listed. `requested.*` undefined: not in the body; `metricsAfter.*` undefined: the
 * list kept; `savedAfter` null: the links kept.
 * @throws ValidationError when an order misses a metric (see `checkOrdering`).
 */
export function orderingOnUpdate(args: {
  stored: MetricOrdering;
  requested: { primary: string[] | null | undefined; secondary: string[] | null | undefined };
  metricsBefore: { primary: unknown; secondary: unknown };
  metricsAfter: { primary: unknown; secondary: unknown };
  savedBefore: readonly SavedMetricLinkUuid[];
  savedAfter: readonly SavedMetricLinkUuid[] | null;
}): MetricOrdering {
  const result = {} as MetricOrdering;
  for (const list of ["primary", "secondary"] as const) {
    let ordering = args.requested[list] === undefined ? args.stored[list] : args.requested[list];
    if (args.metricsAfter[list] !== undefined) {
      ordering = syncOrdering(
        ordering,
        metricUuids(args.metricsBefore[list]),
        metricUuids(args.metricsAfter[list]),
      );
    }
    if (args.savedAfter !== null) {
      ordering = syncOrdering(
        ordering,
        savedMetricUuids(args.savedBefore, list),
        savedMetricUuids(args.savedAfter, list),
      );
    }
    const metrics =
      args.metricsAfter[list] === undefined ? args.metricsBefore[list] : args.metricsAfter[list];
    checkOrdering(list, ordering, [
      ...metricUuids(metrics),
      ...savedMetricUuids(args.savedAfter ?? args.savedBefore, list),
    ]);
    result[list] = ordering;
  }
  return result;
}
