/**
 * The input rules of `POST feature_flags/user_blast_radius/` (spec row 18, posthog-behavior.md
 * §2.10): which persons (or groups of one type) a release condition's properties select. The
 * condition's `rollout_percentage` is not applied (PostHog leaves that to the caller). Pure: the
 * counting runs in the database (persons' and groups' `countMatching`).
 * Source: `posthog/api/feature_flag.py` `user_blast_radius`,
 * `posthog/models/feature_flag/user_blast_radius.py` `get_user_blast_radius` (late 2025).
 */
import { z } from "zod";
import { NotImplementedError, ValidationError } from "../../core/errors.js";
import { checkNestingDepth } from "../../core/json-input.js";
import { drf, parseInput, pythonType } from "../../core/validation.js";
import {
  type PropertyFilter,
  type PropertyGroup,
  propertyGroupSchema,
  walkNodes,
} from "../../lib/property-filters/property-filters.js";
import { isPythonFalsy } from "./python-format.js";
import { isJsonObject } from "./stored-filters.js";

/** The property PostHog reads as a group's own key (the `groups.key` column), not one of its properties. */
export const GROUP_KEY_PROPERTY = "$group_key";

/** The highest group type index (PostHog's `GroupTypeIndex`: 0–4). */
const MAX_GROUP_TYPE_INDEX = 4;

/** The request body: PostHog's names; `condition` is read by hand (its absence has its own message). */
export const blastRadiusBodySchema = z.object({
  condition: z
    .unknown()
    .describe(
      "A release condition: `{properties: [PropertyFilter, ...], rollout_percentage?}` (the rollout is not applied).",
    ),
  group_type_index: drf
    .integer()
    .nullable()
    .optional()
    .superRefine((value, ctx) => {
      if (value === null || value === undefined) return;
      if (value < 0) {
        ctx.addIssue({
          code: "custom",
          message: "Ensure this value is greater than or equal to 0.",
          params: { code: "min_value" },
        });
      } else if (value > MAX_GROUP_TYPE_INDEX) {
        ctx.addIssue({
          code: "custom",
          message: `Ensure this value is less than or equal to ${MAX_GROUP_TYPE_INDEX}.`,
          params: { code: "max_value" },
        });
      }
    })
    .describe("Count groups of this type (0–4) instead of persons; null or absent: persons."),
});

/** What to count: the criteria (null: everyone) over persons, or over groups of `groupTypeIndex`. */
export interface BlastRadiusQuery {
  criteria: PropertyGroup | null;
  /** Null: persons; else the group type whose groups are counted. */
  groupTypeIndex: number | null;
}

/** Prefixes a validation error's `attr` with the path of the part it was found in. */
function within(prefix: string, error: unknown): unknown {
  if (!(error instanceof ValidationError)) return error;
  const attr = error.attr === null ? prefix : `${prefix}__${error.attr}`;
  return new ValidationError(error.message, { attr, code: error.code });
}

/**
 * Reads a blast-radius request body.
 * - Nested deeper than `limits.maxJsonDepth`: 400 `max_depth` naming the field (`checkNestingDepth`).
 * - `condition` absent: 400 `Missing condition for which to get blast radius`; falsy: no properties.
 * - `condition.properties`: a list of property filters (AND) or a property group; falsy: none, so
 *   every person (or group of the type) counts.
 * - With `group_type_index`, every filter must be a group filter of that type, but `$group_key`,
 *   which takes the type: 400 `Invalid group type index for feature flag condition.`
 * @throws ValidationError as above or for a malformed filter (`attr` under `condition__properties`);
 *   NotImplementedError for a condition on another flag (it needs flag evaluation, not SQL).
 */
export function readBlastRadiusQuery(body: unknown, limits: { maxJsonDepth: number }): BlastRadiusQuery {
  // As DRF's parser would before the action reads anything, too deep a body is refused first.
  checkNestingDepth(body, limits.maxJsonDepth);
  if (!isJsonObject(body) || !("condition" in body)) {
    throw new ValidationError("Missing condition for which to get blast radius");
  }
  const input = parseInput(blastRadiusBodySchema, body, limits);
  const groupTypeIndex = input.group_type_index ?? null;
  const condition = isPythonFalsy(input.condition) ? {} : input.condition;
  if (!isJsonObject(condition)) {
    throw new ValidationError(`Expected a dictionary of items but got type "${pythonType(condition)}".`, {
      attr: "condition",
      code: "not_a_dict",
    });
  }
  const properties = isPythonFalsy(condition.properties) ? [] : condition.properties;
  let tree: PropertyGroup;
  try {
    const group = Array.isArray(properties) ? { type: "AND", values: properties } : properties;
    refuseFlagConditions(group);
    tree = parseInput(propertyGroupSchema, withGroupKeyType(group, groupTypeIndex), limits);
  } catch (error) {
    throw within("condition__properties", error);
  }
  const filters = [...walkNodes(tree)].filter((node) => node.type !== "AND" && node.type !== "OR");
  if (groupTypeIndex !== null) {
    for (const filter of filters as PropertyFilter[]) {
      if (filter.group_type_index !== groupTypeIndex) {
        throw new ValidationError("Invalid group type index for feature flag condition.");
      }
    }
  }
  return { criteria: filters.length === 0 ? null : tree, groupTypeIndex };
}

/** `$group_key` filters take the counted group type, as PostHog sets it (`get_user_blast_radius`). */
function withGroupKeyType(group: unknown, groupTypeIndex: number | null): unknown {
  if (groupTypeIndex === null || !isJsonObject(group) || !Array.isArray(group.values)) return group;
  return {
    ...group,
    values: group.values.map((value): unknown => {
      if (isJsonObject(value) && value.key === GROUP_KEY_PROPERTY) {
        return { ...value, type: "group", group_type_index: groupTypeIndex };
      }
      return withGroupKeyType(value, groupTypeIndex);
    }),
  };
}

/** Refuses `type: "flag"` filters (flag dependencies, §2.6) anywhere in a raw property tree. */
function refuseFlagConditions(node: unknown): void {
  if (!isJsonObject(node)) return;
  if (node.type === "flag") {
    throw new NotImplementedError(
      "Conditions on other flags (flag dependencies) cannot be counted in the database: they need flag evaluation.",
    );
  }
  if (Array.isArray(node.values)) for (const child of node.values) refuseFlagConditions(child);
}
