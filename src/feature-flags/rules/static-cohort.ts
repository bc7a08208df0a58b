/**
 * The name of the static cohort `create_static_cohort_for_flag` creates (spec row 7,
 * posthog-behavior.md §2.10; posthog/api/feature_flag.py `create_static_cohort_for_flag`:
 * `f"Users with feature flag {key} enabled at {datetime.now().strftime('%Y-%m-%d %H:%M:%S')}"`,
 * PostHog's servers running in UTC). Pure.
 */

/** `at` as `YYYY-MM-DD HH:MM:SS` in UTC (Python's `%Y-%m-%d %H:%M:%S`; seconds truncated). */
function utcSeconds(at: Date): string {
  return at.toISOString().slice(0, 19).replace("T", " ");
}

/** `Users with feature flag <key> enabled at <YYYY-MM-DD HH:MM:SS>`, the time in UTC. */
export function staticCohortName(flagKey: string, at: Date): string {
  return `Users with feature flag ${flagKey} enabled at ${utcSeconds(at)}`;
}
