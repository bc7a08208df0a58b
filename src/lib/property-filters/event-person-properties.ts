/**
 * The event properties PostHog lifts onto the person (plugin-server `eventToPersonProperties`,
 * posthog/taxonomy/taxonomy.py `PERSON_PROPERTIES_ADAPTED_FROM_EVENT` and `CAMPAIGN_PROPERTIES`):
 * capture sets each on the person and its `$initial_*` twin once (src/ingestion/rules/
 * person-properties.ts); flag evaluation fills a twin capture has not written yet from the current
 * value (rust/feature-flags flag_matching_utils.rs `populate_missing_initial_properties`).
 */

/** Page and screen properties of an event: lifted onto the person, and too volatile to write alone. */
export const PAGE_PROPERTIES = [
  "$current_url",
  "$pathname",
  "$referring_domain",
  "$referrer",
  "$screen_height",
  "$screen_width",
  "$viewport_height",
  "$viewport_width",
];

/** Browser and device properties of an event: lifted onto the person, and too volatile to write alone. */
export const DEVICE_PROPERTIES = [
  "$browser",
  "$browser_version",
  "$device_type",
  "$raw_user_agent",
  "$os",
  "$os_name",
  "$os_version",
];

/** App properties of mobile SDKs' events, lifted onto the person. */
export const APP_PROPERTIES = ["$app_build", "$app_name", "$app_namespace", "$app_version"];

/** Campaign parameters (PostHog's `CAMPAIGN_PROPERTIES`), lifted onto the person. */
export const CAMPAIGN_PROPERTIES = [
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_name",
  "utm_term",
  "gclid",
  "gad_source",
  "gclsrc",
  "dclid",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid",
  "twclid",
  "li_fat_id",
  "mc_cid",
  "igshid",
  "ttclid",
  "rdt_cid",
  "irclid",
  "_kx",
  "epik",
  "qclid",
  "sccid",
];

/** Event properties lifted onto the person (PostHog's `eventToPersonProperties`). */
export const EVENT_TO_PERSON_PROPERTIES = [
  ...APP_PROPERTIES,
  ...DEVICE_PROPERTIES,
  ...PAGE_PROPERTIES,
  ...CAMPAIGN_PROPERTIES,
];

/** The `$initial_*` twin of a lifted property: `$browser` → `$initial_browser`, `utm_source` → `$initial_utm_source`. */
export function initialPropertyKey(key: string): string {
  return `$initial_${key.replace("$", "")}`;
}
