/**
 * The endpoints domain's job (src/core/jobs/): `endpoint-materialize`, one refresh of one materialized
 * endpoint version (payload `{versionId}`), scheduled per version under its job key by the
 * materialization service, which also enqueues each run's successor (materialization.service.ts).
 */
import { z } from "zod";
import type { JobModule } from "../../core/jobs/jobs.js";
import { ENDPOINT_MATERIALIZE_JOB } from "./materialization.service.js";

/** The job's payload: the endpoint version to refresh. */
const payload = z.object({ versionId: z.uuid() });

/** The endpoints domain's jobs. */
export const endpointJobs: JobModule = ({ services }) => [
  {
    name: ENDPOINT_MATERIALIZE_JOB,
    payload,
    // A refresh records its own failure (`Failed`, `latest_error`) and enqueues the next one: the
    // queue does not retry it.
    maxAttempts: 1,
    handler: ({ versionId }) => services.endpointMaterialization.refresh(versionId),
  },
];
