/**
 * What a scheduled change's payload does to its flag, as PostHog's dispatcher shapes it
 * (products/feature_flags/backend/models/feature_flag.py `FeatureFlag.scheduled_changes_dispatcher`
 * and `build_scheduled_change_serializer_data`), before the flag's own update rules run on the result:
 * - `update_status`: `{active: value}` (the flag's PATCH validates `value` as a boolean);
 * - `add_release_condition`: the value's `groups` appended to the stored filters' groups;
 * - `update_variants`: the value's `variants` replace `multivariate.variants` (the rest of
 *   `multivariate` kept) and its `payloads` replace the filters' `payloads`, after the dispatcher's
 *   own checks (rollouts summing to 100, payload keys among the variant keys).
 * Pure: the payload in, the change out; the filters rewrite runs on the flag's stored filters under
 * its row lock.
 */
import { pythonStr, ScheduledChangeError } from "./failures.js";

/** A flag change a payload asks for: a PATCH body, or a rewrite of the stored filters. */
export type FlagChange =
  | { kind: "update"; body: { active: unknown } }
  | { kind: "filters"; rewrite: (stored: Record<string, unknown>) => Record<string, unknown> };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Python's `repr` of a set of strings (`{'a', 'b'}`, `set()` when empty), in first-seen order. */
function pythonSet(values: Iterable<unknown>): string {
  const items = [...new Set(values)].map((value) =>
    typeof value === "string"
      ? `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`
      : value === null || value === undefined
        ? "None"
        : String(value),
  );
  return items.length ? `{${items.join(", ")}}` : "set()";
}

/**
 * The dispatcher's checks of `update_variants` (PostHog's apply-time validation), in its order.
 * @throws ScheduledChangeError (ValueError) `Invalid variant rollout percentages: sum is <n>, must be 100`,
 *   `Payload keys {...} don't match variant keys {...}`; (TypeError) for a variant or a rollout that
 *   is not what it sums.
 */
function checkVariants(variants: unknown[], payloads: Record<string, unknown>): void {
  if (variants.length > 0) {
    let total = 0;
    for (const variant of variants) {
      if (!isObject(variant))
        throw new ScheduledChangeError("Invalid payload: a variant is not an object", "TypeError");
      const rollout = variant["rollout_percentage"] ?? 0;
      if (typeof rollout !== "number") {
        throw new ScheduledChangeError(
          "Invalid payload: a variant's rollout_percentage is not a number",
          "TypeError",
        );
      }
      total += rollout;
    }
    if (total !== 100) {
      throw new ScheduledChangeError(
        `Invalid variant rollout percentages: sum is ${total}, must be 100`,
        "ValueError",
      );
    }
  }
  const variantKeys = variants.map((variant) => (isObject(variant) ? variant["key"] : undefined));
  const payloadKeys = Object.keys(payloads);
  const invalid = payloadKeys.filter((key) => !variantKeys.includes(key));
  if (payloadKeys.length > 0 && variantKeys.length > 0 && invalid.length > 0) {
    throw new ScheduledChangeError(
      `Payload keys ${pythonSet(invalid)} don't match variant keys ${pythonSet(variantKeys)}`,
      "ValueError",
    );
  }
}

/**
 * The flag change `payload` asks for.
 * @throws ScheduledChangeError `Invalid payload` (no `operation` or no `value`), `Unrecognized
 *   operation: <operation>`, and `update_variants`' checks (`checkVariants`); all permanent failures.
 */
export function flagChangeOf(payload: unknown): FlagChange {
  if (!isObject(payload) || !("operation" in payload) || !("value" in payload)) {
    throw new ScheduledChangeError("Invalid payload", "Exception");
  }
  const { operation, value } = payload;
  if (operation === "update_status") return { kind: "update", body: { active: value } };
  if (operation === "add_release_condition") {
    const added = isObject(value) ? (value["groups"] ?? []) : [];
    if (!Array.isArray(added))
      throw new ScheduledChangeError("Invalid payload: groups is not a list", "TypeError");
    return {
      kind: "filters",
      rewrite: (stored) => {
        const groups = stored["groups"] ?? [];
        if (!Array.isArray(groups))
          throw new ScheduledChangeError("Invalid payload: the flag's groups are not a list", "TypeError");
        return { ...stored, groups: [...groups, ...added] };
      },
    };
  }
  if (operation === "update_variants") {
    if (!isObject(value)) throw new ScheduledChangeError("Invalid payload", "Exception");
    const variants = value["variants"] ?? [];
    const payloads = value["payloads"] ?? {};
    if (!Array.isArray(variants))
      throw new ScheduledChangeError("Invalid payload: variants is not a list", "TypeError");
    if (!isObject(payloads))
      throw new ScheduledChangeError("Invalid payload: payloads is not an object", "TypeError");
    checkVariants(variants, payloads);
    return {
      kind: "filters",
      rewrite: (stored) => {
        const multivariate = isObject(stored["multivariate"]) ? stored["multivariate"] : {};
        return { ...stored, multivariate: { ...multivariate, variants }, payloads };
      },
    };
  }
  throw new ScheduledChangeError(`Unrecognized operation: ${pythonStr(operation)}`, "Exception");
}
