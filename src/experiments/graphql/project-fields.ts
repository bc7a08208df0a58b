/**
 * The experiment fields of `Project`: one experiment by id, and the filtered page of experiments
 * through the same service reads as REST (filters re-encoded into REST's query names).
 */
import { NotFoundError, ProjectNotFoundError } from "../../core/errors.js";
import { builder, connectionTotalCount } from "../../graphql/builder.js";
import { resolveCountedConnection } from "../../graphql/offset-connection.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { ExperimentRef, parseExperimentId } from "./experiment.type.js";

const ExperimentFilterInput = builder.inputType("ExperimentFilterInput", {
  description: "Narrows an experiment list, as REST's list query parameters do. Unset fields do not filter.",
  fields: (t) => ({
    status: t.string({ description: "`draft`, `running`, `complete` or `all`." }),
    archived: t.boolean({ description: "Archived experiments only (true); by default they are left out." }),
    createdById: t.int({ description: "Only experiments this user (integer id) created." }),
    search: t.string({ description: "Matches the name, case-insensitive." }),
    order: t.string({
      description: "A field (`created_at`, `name`, `duration`, `status`, ...), `-` for descending.",
    }),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  experiment: t.field({
    type: ExperimentRef,
    nullable: true,
    description:
      "One experiment of the project by `id` (its integer id or global id); null when none. Scope `experiment:read`.",
    extensions: requiresScopes("experiment:read"),
    args: { id: t.arg.id({ required: true, description: "The experiment's integer id or global `id`." }) },
    resolve: async (project, args, ctx) => {
      try {
        return await ctx.services.experiments.get(
          await ctx.serviceContext(),
          project.id,
          parseExperimentId(String(args.id)) ?? 0,
        );
      } catch (error) {
        if (error instanceof NotFoundError && !(error instanceof ProjectNotFoundError)) return null;
        throw error;
      }
    },
  }),
  experiments: t.connection(
    {
      type: ExperimentRef,
      nullable: true,
      description: "The project's experiments (not deleted), newest first. Scope `experiment:read`.",
      extensions: requiresScopes("experiment:read"),
      args: { filter: t.arg({ type: ExperimentFilterInput, description: "Which experiments to list." }) },
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const f = args.filter ?? {};
        const query: Record<string, unknown> = {};
        if (f.status != null) query["status"] = f.status;
        if (f.archived != null) query["archived"] = f.archived;
        if (f.createdById != null) query["created_by_id"] = f.createdById;
        if (f.search != null) query["search"] = f.search;
        if (f.order != null) query["order"] = f.order;
        return resolveCountedConnection(args, ctx.limits.maxPageSize, (page) =>
          ctx.services.experiments.list(serviceContext, project.id, query, page),
        );
      },
    },
    {
      name: "ExperimentConnection",
      description: "A page of experiments.",
      fields: (c) => ({
        totalCount: c.int({
          description: "Experiments matching the filter, on all pages.",
          resolve: connectionTotalCount,
        }),
      }),
    },
    { name: "ExperimentEdge", description: "An experiment in a page of experiments." },
  ),
}));
