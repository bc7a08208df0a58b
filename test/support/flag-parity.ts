/**
 * Our engine and posthog-node's local evaluator, side by side on the same definitions and persons
 * (issue 8's parity checks and the engine bench).
 *
 * posthog-node runs as its users run it: a real `PostHog` client with a personal API key, in
 * local-evaluation mode, its definitions fetched from `/flags/definitions` (answered here, by the
 * client's own `fetch` option, with the bytes of the payload), flags read with `evaluateFlags(...,
 * {onlyEvaluateLocally: true})`. That is the most faithful way short of a server: the client's own
 * context building (`distinct_id` added to person properties, `$group_key` to group properties),
 * its flag loop, dependency chains and cohort matching all run, and its `unresolvedFlags` say which
 * flags it could not decide locally (it would ask the server for those).
 *
 * Our engine gets the same person as the server would see it once these properties are stored: the
 * properties SDK users pass as `personProperties`, with `distinct_id` (remote-flags' subject adds it
 * too) and `$group_key` per group.
 */
import { PostHog } from "posthog-node";
import { buildProjectDefinitions } from "../../src/feature-flags/delivery/definitions.js";
import {
  type compileDefinitions,
  evaluateFlags,
} from "../../src/feature-flags/evaluation/engine/evaluate.js";
import type {
  EvaluationReason,
  EvaluationSubject,
  FlagValue,
} from "../../src/feature-flags/evaluation/engine/types.js";
import type { ProjectDefinitions } from "../../src/feature-flags/evaluation/project-definitions.js";
import type { GeneratedPerson, GeneratedProject } from "./flag-arbitraries.js";

/** One flag's outcome as both sides report it: the value and the payload, parsed as posthog-node parses it. */
export interface FlagOutcome {
  value: FlagValue;
  payload: unknown;
}

/** A payload as posthog-node hands it to its users: JSON text parsed when it parses, absent when falsy. */
export function parsedPayload(payload: unknown): unknown {
  if (payload === null || payload === undefined || payload === "") return null;
  if (typeof payload !== "string") return payload;
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
}

/**
 * A generated project as the server loads it: its rows (flags as stored, cohorts with their criteria
 * in `filters.properties`, the group types) through `buildProjectDefinitions`, which gives the
 * engine's definitions and the local-evaluation payload SDKs download, both as in production.
 */
export function projectDefinitionsOf(project: GeneratedProject): ProjectDefinitions {
  return buildProjectDefinitions(1, 1n, {
    flags: project.flags.map((flag) => ({
      id: flag.id,
      key: flag.key,
      name: "",
      active: flag.active,
      filters: flag.filters,
      rolloutPercentage: null,
      ensureExperienceContinuity: flag.ensureExperienceContinuity,
      isRemoteConfiguration: false,
      hasEncryptedPayloads: false,
      version: 1,
      evaluationRuntime: "all",
      bucketingIdentifier: flag.bucketingIdentifier ?? "distinct_id",
      evaluationTags: [],
    })),
    groupTypes: Object.entries(project.groupTypeMapping).map(([index, groupType]) => ({
      groupTypeIndex: Number(index),
      groupType,
    })),
    cohorts: project.cohorts.map((cohort) => ({
      id: cohort.id,
      isStatic: cohort.isStatic,
      filters: cohort.isStatic ? {} : { properties: cohort.criteria },
      groups: [],
    })),
  });
}

/** The subject our engine evaluates for a person, as the server sees it (see the module header). */
export function subjectOf(person: GeneratedPerson): EvaluationSubject {
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [name, key] of Object.entries(person.groups)) {
    groupProperties[name] = { $group_key: key, ...person.groupProperties[name] };
  }
  const deviceId = person.properties["$device_id"];
  return {
    distinctId: person.distinctId,
    deviceId: typeof deviceId === "string" && deviceId !== "" ? deviceId : null,
    personProperties: { distinct_id: person.distinctId, ...person.properties },
    groups: person.groups,
    groupProperties,
    staticCohortIds: new Set(person.staticCohortIds),
    hashKeyOverrides: {},
  };
}

/** Our engine's outcome of a flag, with why. */
export interface EngineOutcome extends FlagOutcome {
  reason: EvaluationReason;
  conditionIndex: number | null;
}

/** A compiled project evaluated by our engine for one person: every flag's outcome and reason by key. */
export function engineOutcomes(
  compiled: ReturnType<typeof compileDefinitions>,
  person: GeneratedPerson,
  now: Date,
): Map<string, EngineOutcome> {
  const out = new Map<string, EngineOutcome>();
  for (const [key, evaluation] of evaluateFlags(compiled, subjectOf(person), { now })) {
    out.set(key, {
      value: evaluation.value,
      payload: parsedPayload(evaluation.payload),
      reason: evaluation.reason,
      conditionIndex: evaluation.conditionIndex,
    });
  }
  return out;
}

/** posthog-node's local evaluation of one person: what it decided, and why it left the rest. */
export interface LocalOutcomes {
  decided: Map<string, FlagOutcome>;
  /** Flag key → posthog-node's reason for not deciding it locally (`unresolvedFlags`). */
  unresolved: Record<string, string>;
}

/**
 * What a posthog-node client in local-evaluation mode decides for `person` from the definitions it
 * holds, without asking the server (`evaluateFlags(..., {onlyEvaluateLocally: true})`): the flags it
 * decided, with their values and parsed payloads, and its reasons for the rest. No event is sent.
 */
export async function locallyDecided(
  client: PostHog,
  person: Pick<GeneratedPerson, "distinctId" | "properties" | "groups" | "groupProperties">,
): Promise<LocalOutcomes> {
  const flags = await client.evaluateFlags(person.distinctId, {
    personProperties: person.properties,
    groups: person.groups,
    groupProperties: person.groupProperties,
    onlyEvaluateLocally: true,
  });
  const decided = new Map<string, FlagOutcome>();
  for (const key of flags.keys) {
    const value = flags.getFlag(key, { sendFeatureFlagEvents: false });
    if (value !== undefined) decided.set(key, { value, payload: parsedPayload(flags.getFlagPayload(key)) });
  }
  return { decided, unresolved: { ...flags.unresolvedFlags } };
}

/** A posthog-node client in local-evaluation mode over fixed definitions (see the module header). */
export interface LocalEvaluator {
  evaluate(person: GeneratedPerson): Promise<LocalOutcomes>;
  /**
   * Every flag's value and payload for a person as posthog-node users most often ask for them
   * (`getAllFlagsAndPayloads`, local only), without reading them back: what the engine bench times.
   */
  evaluateAll(person: GeneratedPerson): Promise<unknown>;
  /** Requests the client made to anything but `/flags/definitions` (none are expected). */
  otherRequests: string[];
  close(): Promise<void>;
}

/** Starts a posthog-node client whose `/flags/definitions` answers `payload` (the served bytes and ETag). */
export async function localEvaluator(payload: { body: Buffer; etag: string }): Promise<LocalEvaluator> {
  const bytes = new Uint8Array(payload.body);
  const otherRequests: string[] = [];
  const client = new PostHog("phc_parity", {
    host: "http://parity.invalid",
    personalApiKey: "phx_parity",
    featureFlagsPollingInterval: 3_600_000,
    fetchRetryCount: 0,
    flushAt: 1,
    flushInterval: 0,
    fetch: async (url: string) => {
      if (new URL(url).pathname === "/flags/definitions") {
        return new Response(bytes, {
          status: 200,
          headers: { "content-type": "application/json", etag: payload.etag },
        });
      }
      otherRequests.push(url);
      return new Response("{}", { status: 500 });
    },
  });
  return {
    otherRequests,
    evaluate: (person) => locallyDecided(client, person),
    evaluateAll: (person) =>
      client.getAllFlagsAndPayloads(person.distinctId, {
        personProperties: person.properties,
        groups: person.groups,
        groupProperties: person.groupProperties,
        onlyEvaluateLocally: true,
      }),
    close: () => client.shutdown(),
  };
}
