/**
 * The person fields of `Project`: one person by id, and the filtered page of persons. Each goes
 * through the same service read as REST: a page of persons with their distinct ids is one SQL statement.
 */
import { PothosValidationError } from "@pothos/core";
import { resolveOffsetConnection } from "@pothos/plugin-relay";
import { DEFAULT_PAGE_SIZE } from "../../config.js";
import { ValidationError } from "../../core/errors.js";
import { builder } from "../../graphql/builder.js";
import { decodeGlobalId, parseProjectOwnedLocalId } from "../../graphql/ids.js";
import { postHogFields } from "../../graphql/input-mapping.js";
import { nullWhenMissing } from "../../graphql/null-when-missing.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import { PersonRef } from "./person.type.js";

/**
 * The id REST's path would carry for a `person(id:)` argument: the uuid inside a `Person` global id,
 * or the argument itself (a uuid or PostHog's integer id).
 */
function restPersonId(raw: string): string {
  const global = decodeGlobalId(raw);
  if (global?.typename !== "Person") return raw;
  return parseProjectOwnedLocalId(global.localId)?.key ?? raw;
}

builder.objectFields(ProjectRef, (t) => ({
  person: t.field({
    type: PersonRef,
    nullable: true,
    description:
      "One person of the project by its uuid, PostHog's integer id or its global `id`; null when there is none. " +
      "Scope `person:read`.",
    extensions: requiresScopes("person:read"),
    args: { id: t.arg.id({ required: true, description: "The person's uuid, integer id or global `id`." }) },
    resolve: async (project, args, ctx) =>
      nullWhenMissing(
        ctx.services.persons.get(await ctx.serviceContext(), project.id, restPersonId(String(args.id))),
      ),
  }),
  persons: t.connection(
    {
      type: PersonRef,
      nullable: true,
      description:
        `The project's persons, newest first (REST's person list), ${DEFAULT_PAGE_SIZE} per page unless ` +
        "`first`/`last` say otherwise (clamped to the configured page size). Scope `person:read`. A page with " +
        "its persons' distinct ids is one SQL statement.",
      extensions: requiresScopes("person:read"),
      args: {
        search: t.arg.string({
          description: "Persons whose email contains it (any case), or with this exact distinct id or uuid.",
        }),
        distinctId: t.arg.string({ description: "Only the person with this distinct id." }),
        email: t.arg.string({ description: "Only persons whose `email` property is exactly this." }),
        properties: t.arg({
          type: "JSON",
          description:
            "Person property and cohort filters (REST's `properties`): a list of PostHog property filters (all " +
            'must match) or a group `{type: "AND"|"OR", values}`.',
        }),
      },
      resolve: async (project, args, ctx) => {
        const serviceContext = await ctx.serviceContext();
        const query = postHogFields(
          {
            search: args.search,
            distinctId: args.distinctId,
            email: args.email,
            properties: args.properties,
          },
          { search: "search", distinctId: "distinct_id", email: "email", properties: "properties" },
        );
        // Paging back from the end would need the total, which this list does not count.
        if (args.last != null && args.before == null) {
          throw new ValidationError("`last` pages back from `before`: persons are not counted.", {
            attr: "last",
          });
        }
        try {
          return await resolveOffsetConnection(
            { args, defaultSize: DEFAULT_PAGE_SIZE, maxSize: ctx.limits.maxPageSize },
            async (page) =>
              (await ctx.services.persons.list(serviceContext, project.id, query, page)).results,
          );
        } catch (error) {
          // A malformed cursor or a negative size: the caller's mistake, said as such.
          if (error instanceof PothosValidationError) throw new ValidationError(error.message);
          throw error;
        }
      },
    },
    { name: "PersonConnection", description: "A page of persons." },
    { name: "PersonEdge", description: "A person in a page of persons." },
  ),
}));
