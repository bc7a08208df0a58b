/**
 * A project's flag definitions at one revision: what flag evaluation reads (the engine's
 * `EvaluationDefinitions`) and what SDKs in local-evaluation mode download (./local-evaluation.ts),
 * loaded once per (project, revision) per process and shared by every caller.
 *
 * THE INVARIANT THIS RESTS ON: every write that changes the definitions (a flag, its evaluation
 * tags, a cohort, a group type mapping) bumps `projects.revision` in the same transaction. It holds
 * by construction, in the database, not by services remembering it: the deferred
 * `<table>_revision` triggers of migration `project_revision` (on `feature_flags`, `tags`,
 * `feature_flag_evaluation_tags`) and `analytics_data` (on `group_type_mappings`, `cohorts`) bump
 * the revision of each project a transaction touched, at its COMMIT, once
 * (test/db/project-revision.test.ts checks every project-owned table carries one;
 * test/feature-flags/delivery/local-evaluation.test.ts that a flag PATCH, a cohort PATCH and a group type
 * rename each change the payload's ETag). The revision also moves on writes that change no
 * definition (the event catalogue, activity entries): a cached copy is then reloaded for nothing,
 * and its ETag, taken from the bytes, stays the same, so SDKs still get 304.
 *
 * The revision is read before the rows (or with the caller's key, core/auth/authenticate.ts), so
 * the rows are at least as new as the revision they are cached under: a write committed between the
 * two reads is seen, and the next request, finding a newer revision, loads again. A copy cached
 * under a revision at least as new as the one a request read is served to it.
 */
import { createHash } from "node:crypto";
import { authorizeProject, authorizeProjectStream } from "../../core/auth/access.js";
import type { DataAccess, ServiceContext } from "../../core/context.js";
import { ProjectNotFoundError } from "../../core/errors.js";
import { andThen, type MaybePromise } from "../../core/maybe-promise.js";
import { databaseOf, type ServiceDeps } from "../../core/services.js";
import { readCriteria, storedCriteria } from "../../lib/property-filters/cohort-definitions.js";
import type { EvaluationCohort } from "../evaluation/engine/types.js";
import type {
  DefinitionFlag,
  LocalEvaluationBytes,
  ProjectDefinitions,
} from "../evaluation/project-definitions.js";
import { flagCohortIds, type InliningCohort, UnreadableFlagError } from "../rules/cohort-inlining.js";
import { effectiveFilters } from "../rules/stored-filters.js";
import { type DefinitionRows, readDefinitionRows } from "./definitions.queries.js";
import { countDefinitionsRead } from "./delivery-metrics.js";
import { localEvaluationBody } from "./local-evaluation.js";

/** Flag definitions per project revision, cached per process. */
export interface FlagDefinitionsService {
  /**
   * The project's definitions now: no statement when cached and the revision is known from the
   * change feed (core/project-revisions.ts), one to read the revision otherwise, and a bounded
   * reload (three statements) when it moved. For callers that authorised the project by other means (the SDK
   * door's public token).
   * @throws ProjectNotFoundError when no project has this id.
   */
  current(projectId: number): Promise<ProjectDefinitions>;
  /**
   * The local-evaluation payload of a project for an API caller (spec row 16, `GET /flags/definitions`,
   * `GET /api/feature_flag/local_evaluation`): needs `feature_flag:read` on the project
   * (posthog-behavior.md §1.7). Costs no statement of its own when cached: the revision comes with
   * the caller's key lookup. Answers at once (no promise) when the caller's context holds the project
   * and its definitions are loaded at that revision, for answers given from memory
   * (sdk/known-answers.ts).
   * @throws as `authorizeProject` (404 unknown project, 403 key limits, scope, membership).
   */
  localEvaluation(
    ctx: ServiceContext,
    projectId: number,
    sendCohorts: boolean,
  ): MaybePromise<LocalEvaluationBytes>;
  /**
   * The revision the local-evaluation payload of the project is at, for a caller with
   * `feature_flag:read` (GraphQL `Project.flagDefinitionsRevision`): it changes with every write to
   * the project's configuration, so an unchanged value means unchanged definitions.
   * @throws as `authorizeProject`.
   */
  revision(ctx: ServiceContext, projectId: number): Promise<bigint>;
  /**
   * The local-evaluation payload of a project as it changes, for server SDKs that stream instead of
   * polling (`GET /flags/definitions/stream`): authorises as `localEvaluation` (before it resolves),
   * then yields the payload at the current revision, unless `since` is that revision (a client
   * resuming with `Last-Event-ID` that missed nothing), and then the payload of each newer revision
   * whose bytes differ from the last sent (a revision that changed no definition sends nothing).
   * The same bytes as the polling paths, serialised once per revision for every caller. Ends when
   * `signal` aborts; ends with the refusal when the caller may no longer read the project's flags
   * (re-checked whenever access changes: core/auth/access.ts `authorizeProjectStream`), and quietly
   * when the project is found deleted after a `reset`.
   * @throws as `authorizeProject`.
   */
  stream(
    ctx: ServiceContext,
    projectId: number,
    options: { sendCohorts: boolean; since: bigint | null; signal: AbortSignal },
  ): Promise<AsyncIterable<DefinitionsAtRevision>>;
}

/** One payload of the definitions stream: the revision it is at and its bytes. */
export interface DefinitionsAtRevision {
  revision: bigint;
  payload: LocalEvaluationBytes;
}

/** How many projects' definitions a process keeps before it starts over. */
const MAX_CACHED_PROJECTS = 10_000;

function readable<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof UnreadableFlagError) return fallback;
    throw error;
  }
}

/** Serialises a payload once. */
function bytesOf(body: unknown): LocalEvaluationBytes {
  const bytes = Buffer.from(JSON.stringify(body));
  const digest = createHash("sha256").update(bytes).digest("base64url").slice(0, 22);
  return { body: bytes, etag: `W/"${digest}"` };
}

/** The definitions of `projectId` from its rows, read at (or after) `revision`. */
export function buildProjectDefinitions(
  projectId: number,
  revision: bigint,
  rows: DefinitionRows,
): ProjectDefinitions {
  const flags: DefinitionFlag[] = rows.flags.map((row) => ({
    id: row.id,
    key: row.key,
    active: row.active,
    filters: effectiveFilters(row.filters, row.rolloutPercentage),
    ensureExperienceContinuity: row.ensureExperienceContinuity,
    bucketingIdentifier: row.bucketingIdentifier === "distinct_id" ? null : row.bucketingIdentifier,
    name: row.name,
    version: row.version,
    isRemoteConfiguration: row.isRemoteConfiguration,
    hasEncryptedPayloads: row.hasEncryptedPayloads,
    evaluationRuntime: row.evaluationRuntime,
    evaluationTags: row.evaluationTags,
  }));
  const projectCohorts = new Map<number, InliningCohort>();
  for (const row of rows.cohorts) {
    // Static cohorts are membership lists and unreadable criteria are skipped (PostHog's
    // `is_static` check and `except: continue`); a cohort without criteria is an empty group.
    const criteria = row.isStatic ? "unreadable" : readCriteria(row.filters, row.groups);
    projectCohorts.set(row.id, {
      isStatic: row.isStatic,
      criteria: criteria === "unreadable" ? null : (criteria ?? { type: "AND", values: [] }),
    });
  }
  const cohortRows = new Map(rows.cohorts.map((row) => [row.id, row]));
  const cohorts = new Map<number, EvaluationCohort>();
  for (const flag of flags) {
    for (const id of readable(() => flagCohortIds(flag.filters, projectCohorts), [])) {
      const row = cohortRows.get(id)!;
      cohorts.set(id, {
        id,
        isStatic: row.isStatic,
        criteria: row.isStatic ? null : storedCriteria(row.filters, row.groups),
      });
    }
  }
  const groupTypeMapping = Object.fromEntries(
    rows.groupTypes.map((row) => [String(row.groupTypeIndex), row.groupType]),
  );
  const payloads = new Map<boolean, LocalEvaluationBytes>();
  const project: ProjectDefinitions = {
    projectId,
    revision,
    definitions: { flags, groupTypeMapping, cohorts },
    projectCohorts,
    localEvaluation(sendCohorts) {
      let payload = payloads.get(sendCohorts);
      if (!payload) {
        payload = bytesOf(localEvaluationBody(project, sendCohorts));
        payloads.set(sendCohorts, payload);
      }
      return payload;
    },
  };
  return project;
}

/** A project's newest load of definitions begun, and its definitions once it has finished. */
interface DefinitionsLoad {
  revision: bigint;
  loaded: Promise<ProjectDefinitions>;
  value?: ProjectDefinitions;
}

/**
 * The flag definitions service on `deps.data` (the database it reads outside any request's
 * context). Per project it keeps the newest definitions loaded; a request that read the same or an
 * older revision is served them, and concurrent requests for a newer one share one load.
 * @throws Error on first use when built without a database (route tables built for documentation).
 */
export function createFlagDefinitionsService(deps: ServiceDeps): FlagDefinitionsService {
  const cache = new Map<number, DefinitionsLoad>();
  const data = (): DataAccess => databaseOf(deps, "flag definitions service");

  const atRevision = (projectId: number, revision: bigint): Promise<ProjectDefinitions> => {
    const cached = cache.get(projectId);
    if (cached && cached.revision >= revision) {
      countDefinitionsRead(true);
      return cached.loaded;
    }
    countDefinitionsRead(false);
    const loaded = readDefinitionRows(data().reader, projectId).then((rows) =>
      buildProjectDefinitions(projectId, revision, rows),
    );
    if (!cache.has(projectId) && cache.size >= MAX_CACHED_PROJECTS) cache.clear();
    const entry: DefinitionsLoad = { revision, loaded };
    cache.set(projectId, entry);
    loaded.then(
      (value) => {
        entry.value = value;
      },
      () => {
        if (cache.get(projectId) === entry) cache.delete(projectId);
      },
    );
    return loaded;
  };

  return {
    async current(projectId) {
      const revision = await data().revisions.current(projectId);
      if (revision === null) throw new ProjectNotFoundError();
      return atRevision(projectId, revision);
    },
    localEvaluation(ctx, projectId, sendCohorts) {
      return andThen(authorizeProject(ctx, projectId, "feature_flag:read"), (project) => {
        const cached = cache.get(projectId);
        if (cached?.value && cached.revision >= project.revision) {
          countDefinitionsRead(true);
          return cached.value.localEvaluation(sendCohorts);
        }
        return atRevision(projectId, project.revision).then((loaded) => loaded.localEvaluation(sendCohorts));
      });
    },
    async revision(ctx, projectId) {
      return (await authorizeProject(ctx, projectId, "feature_flag:read")).revision;
    },
    async stream(ctx, projectId, { sendCohorts, since, signal }) {
      // Subscribed before the first read, so a commit between the two is heard, never missed.
      const { events } = await authorizeProjectStream(ctx, projectId, "feature_flag:read", signal);
      const current = async (): Promise<ProjectDefinitions | null> => {
        try {
          const revision = await data().revisions.current(projectId);
          return revision === null ? null : await atRevision(projectId, revision);
        } catch (error) {
          if (error instanceof ProjectNotFoundError) return null;
          throw error;
        }
      };
      async function* payloads(): AsyncGenerator<DefinitionsAtRevision> {
        try {
          let sent = since;
          let sentEtag: string | null = null;
          let project = await current();
          if (project && project.revision !== since) {
            const payload = project.localEvaluation(sendCohorts);
            yield { revision: project.revision, payload };
            sent = project.revision;
            sentEtag = payload.etag;
          }
          for await (const event of events) {
            if (event.kind === "change") continue;
            if (event.kind === "revision" && sent !== null && event.revision <= sent) continue;
            project =
              event.kind === "revision" ? await atRevision(projectId, event.revision) : await current();
            if (!project) return;
            if (sent !== null && project.revision <= sent) continue;
            const payload = project.localEvaluation(sendCohorts);
            sent = project.revision;
            if (payload.etag === sentEtag) continue;
            sentEtag = payload.etag;
            yield { revision: project.revision, payload };
          }
        } finally {
          await events.return();
        }
      }
      return payloads();
    },
  };
}

declare module "../../core/services.js" {
  interface Services {
    /** Flag definitions per project revision and the local-evaluation payload (see `createFlagDefinitionsService`). */
    flagDefinitions: FlagDefinitionsService;
  }
}
