/**
 * Multivariate flags (posthog-behavior.md §3.3 step 6): variants in stored order with cumulative
 * bounds, the variant hash falling in `[sum before, sum before + pct)` / 100. As the Rust service
 * (`flag_matching.rs` `get_matching_variant`: the first variant whose cumulative bound exceeds the
 * hash) and posthog-node (`getFeatureFlagVariantLookupTable`), which pick the same variant for any
 * percentages. Percentages are read as JavaScript reads them (`"50"` is 50, a missing one NaN), as
 * posthog-node does with odd stored values; sums under 100 leave some identifiers without a
 * variant, and the flag is then plain `true`.
 */
import { variantHash } from "./hash.js";

/** A variant with the cumulative upper bound of its slice, in [0, 1] for sane definitions. */
export interface VariantSlice {
  /** Null for a stored variant without a string key: its slice still counts, and picks no variant. */
  key: string | null;
  upper: number;
}

/** The slices of `filters.multivariate.variants`, read tolerantly (entries that are not objects are skipped). */
export function compileVariants(multivariate: unknown): VariantSlice[] {
  const variants = (multivariate as { variants?: unknown } | null | undefined)?.variants;
  if (!Array.isArray(variants)) return [];
  const slices: VariantSlice[] = [];
  let cumulative = 0;
  for (const variant of variants) {
    if (typeof variant !== "object" || variant === null) continue;
    const { key, rollout_percentage: percentage } = variant as {
      key?: unknown;
      rollout_percentage?: unknown;
    };
    cumulative += Number(percentage) / 100;
    slices.push({ key: typeof key === "string" ? key : null, upper: cumulative });
  }
  return slices;
}

/** The variant `identifier` falls in for flag `flagKey`, or null when none (or no variants). */
export function pickVariant(
  flagKey: string,
  slices: readonly VariantSlice[],
  identifier: string,
): string | null {
  if (slices.length === 0) return null;
  const hash = variantHash(flagKey, identifier);
  for (const slice of slices) if (hash < slice.upper) return slice.key;
  return null;
}
