/**
 * An experiment's version history in GraphQL (issue 27): `Experiment.versions` (REST `versions/`)
 * and `restoreExperimentVersion` (REST `versions/:version/restore/`), over the experiment service's
 * version operations (core/object-versions.ts).
 */
import { APPROVAL_ERRORS } from "../../approvals/graphql/refs.js";
import { ConflictError, NotFoundError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { parseProjectId } from "../../graphql/ids.js";
import { restoreVersionMutation, versionsField } from "../../graphql/object-versions.graphql.js";
import { ExperimentRef, parseExperimentId } from "./experiment.type.js";

builder.objectField(ExperimentRef, "versions", (t) =>
  versionsField(
    t,
    "The experiment's kept versions (one per create and update that changed it), highest first, each with its diff to the one before. Scope `experiment:read`.",
    (ctx, serviceContext, experiment, page) =>
      ctx.services.experiments.versions(serviceContext, experiment.projectId, experiment.id, page),
  ),
);

const restore = restoreVersionMutation({
  name: "RestoreExperimentVersion",
  field: "experiment",
  what: "The experiment",
  rest: "experiments",
  scope: "experiment:write",
  errors: [ConflictError, ...APPROVAL_ERRORS],
});

builder.mutationField("restoreExperimentVersion", (t) =>
  t.field({
    type: ExperimentRef,
    nullable: true,
    description: restore.description,
    extensions: restore.extensions,
    args: {
      input: t.arg({ type: restore.Input, required: true, description: "The experiment and version." }),
    },
    errors: restore.errors,
    resolve: async (_root, { input }, ctx) => {
      const id = parseExperimentId(input.id);
      if (id === null) throw new NotFoundError();
      return ctx.services.experiments.restoreVersion(
        await ctx.serviceContext(),
        parseProjectId(input.projectId),
        id,
        input.version,
      );
    },
  }),
);
