/**
 * `FeatureFlag`'s computed fields that read other flags: `dependentFlags` and `hasActiveDependents`
 * (posthog-behavior.md §2.6), REST's `GET :id/dependent_flags` and `POST :id/has_active_dependents`.
 * One per-request loader serves both fields for every flag of a response: the flags asked for in
 * one tick are answered with two SQL statements per project (the project's flags, then the
 * dependents' records), however many flags a page shows.
 */
import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import { builder } from "../../graphql/builder.js";
import type { GraphQLContext } from "../../graphql/context.js";
import type { FlagRecord } from "../feature-flags.queries.js";
import { FeatureFlagRef, type FlagView } from "./feature-flag.type.js";

/** A flag by its project and id. */
interface FlagKey {
  projectId: number;
  id: number;
}

/** The request's loader of flags' dependents, batched per project. */
const dependentsLoader = createContextCache(
  (ctx: GraphQLContext) =>
    new DataLoader<FlagKey, FlagRecord[], string>(
      async (keys) => {
        const serviceContext = await ctx.serviceContext();
        const byProject = new Map<number, number[]>();
        for (const key of keys)
          byProject.set(key.projectId, [...(byProject.get(key.projectId) ?? []), key.id]);
        const found = new Map<string, FlagRecord[]>();
        await Promise.all(
          [...byProject].map(async ([projectId, ids]) => {
            const lists = await ctx.services.featureFlags.dependentsOfMany(serviceContext, projectId, ids);
            for (const [i, id] of ids.entries()) found.set(`${projectId}:${id}`, lists[i] ?? []);
          }),
        );
        return keys.map((key) => found.get(`${key.projectId}:${key.id}`) ?? []);
      },
      { cacheKeyFn: (key) => `${key.projectId}:${key.id}` },
    ),
);

/** The dependents of `flag`, through the request's loader. */
const dependentsOf = (flag: FlagView, ctx: GraphQLContext) =>
  dependentsLoader(ctx).load({ projectId: flag.projectId, id: flag.id });

builder.objectFields(FeatureFlagRef, (t) => ({
  dependentFlags: t.field({
    type: [FeatureFlagRef],
    description:
      "The active flags of the project that depend on this one (a `flag` condition on its id), by key " +
      "(REST's `GET :id/dependent_flags`). While there are any, this flag cannot be disabled or deleted. " +
      "Batched: two SQL statements per project for every flag of a response.",
    resolve: (flag, _args, ctx) => dependentsOf(flag, ctx),
  }),
  hasActiveDependents: t.boolean({
    description:
      "Whether any active flag depends on this one (`dependentFlags` is not empty; REST's " +
      "`POST :id/has_active_dependents`). Shares `dependentFlags`' loader.",
    resolve: async (flag, _args, ctx) => (await dependentsOf(flag, ctx)).length > 0,
  }),
}));
