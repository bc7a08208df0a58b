/**
 * A remote-configuration flag's payload (posthog-behavior.md §2.10, `posthog/api/feature_flag.py`
 * `remote_config`): what `GET :id/remote_config` answers and GraphQL's `FeatureFlag.remoteConfig`.
 */
import { isPythonFalsy } from "./python-format.js";
import { isJsonObject } from "./stored-filters.js";

/**
 * The payload a flag serves as remote configuration: its stored `filters.payloads["true"]` as is (a
 * JSON string as stored, or another JSON value), null when absent or falsy (PostHog's
 * `payloads.get("true") or None`); undefined when the flag is not a remote configuration.
 */
export function remoteConfigPayload(flag: { isRemoteConfiguration: boolean; filters: unknown }): unknown {
  if (!flag.isRemoteConfiguration) return undefined;
  const payloads = isJsonObject(flag.filters) ? flag.filters.payloads : undefined;
  const payload = isJsonObject(payloads) ? payloads["true"] : undefined;
  return isPythonFalsy(payload) ? null : payload;
}
