/**
 * What a project's flag definitions at one revision are (loaded and cached by ./definitions.ts,
 * serialised for SDKs by ./local-evaluation.ts). Types only, shared by both without a cycle.
 */
import type { InliningCohort } from "../rules/cohort-inlining.js";
import type { EvaluationDefinitions, EvaluationFlag } from "./engine/types.js";

/** A non-deleted flag with what the local-evaluation payload shows beside what evaluation reads. */
export interface DefinitionFlag extends EvaluationFlag {
  /** `get_filters()`: the stored filters, or the legacy rollout as one group (rules/stored-filters.ts). */
  filters: Record<string, unknown>;
  /** The flag's description (PostHog's `name`). */
  name: string;
  version: number;
  /** Remote-configuration flags are evaluated but left out of the local-evaluation payload (§2.10). */
  isRemoteConfiguration: boolean;
  hasEncryptedPayloads: boolean;
  /** `all`, `server` or `client`. */
  evaluationRuntime: string;
  /** Evaluation tag names, sorted. */
  evaluationTags: string[];
}

/** The local-evaluation payload as served: its JSON bytes and their weak ETag. */
export interface LocalEvaluationBytes {
  /** UTF-8 JSON of `{flags, group_type_mapping, cohorts}` (./local-evaluation.ts). */
  body: Buffer;
  /** `W/"<22 base64url characters of the bytes' SHA-256>"`: equal bytes, equal tag, whatever the revision. */
  etag: string;
}

/** A project's flag definitions at one revision. */
export interface ProjectDefinitions {
  projectId: number;
  /** `projects.revision` the definitions were read at (or after: see the module comment). */
  revision: bigint;
  /**
   * Non-deleted flags (inactive and remote-configuration ones included, by id), the group type
   * mapping, and every cohort the flags name, directly or through other cohorts (non-deleted ones).
   */
  definitions: EvaluationDefinitions & { flags: readonly DefinitionFlag[] };
  /** Every non-deleted cohort of the project, as the payload's cohort rules read them (rules/cohort-inlining.ts). */
  projectCohorts: ReadonlyMap<number, InliningCohort>;
  /** The payload with (`send_cohorts`) or without cohorts, serialised on first use and kept. */
  localEvaluation(sendCohorts: boolean): LocalEvaluationBytes;
}
