/**
 * The experiments domain's job (src/core/jobs/): `experiment-timeseries`, one timeseries
 * recalculation (payload `{recalculationId}`), enqueued by `recalculate_timeseries` under the job key
 * `experiment-timeseries:<id>` (timeseries.service.ts).
 */
import { z } from "zod";
import type { JobModule } from "../core/jobs/jobs.js";
import { EXPERIMENT_TIMESERIES_JOB } from "./timeseries.service.js";

/** The job's payload: the recalculation request to compute. */
const payload = z.object({ recalculationId: z.uuid() });

/** The experiments domain's jobs. */
export const experimentJobs: JobModule = ({ services }) => [
  {
    name: EXPERIMENT_TIMESERIES_JOB,
    payload,
    // A run records each day's failure and the request's outcome itself: the queue does not retry it.
    maxAttempts: 1,
    handler: ({ recalculationId }) => services.experiments.runTimeseriesRecalculation(recalculationId),
  },
];
