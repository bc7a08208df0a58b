/**
 * `Project.eventDefinitionCode(language:)`: REST's `GET event_definitions/<language>/` for GraphQL
 * (typed capture code, posthog-behavior.md §6.4), through the same service method.
 */
import { builder } from "../../graphql/builder.js";
import { enumValues } from "../../graphql/enums.js";
import { ProjectRef } from "../../graphql/refs.js";
import { requiresScopes } from "../../graphql/scopes.js";
import type { GeneratedCode } from "../codegen/index.js";
import { CODE_LANGUAGES } from "../codegen/model.js";

/** The languages typed capture code is generated in (REST's path segment, upper-cased). */
export const CodeLanguageEnum = builder.enumType("CodeLanguage", {
  description: "A language typed capture code is generated in (REST `event_definitions/<language>/`).",
  values: enumValues(CODE_LANGUAGES, {
    typescript: "TypeScript for `posthog-js` (`typescript`).",
    golang: "Go for `posthog-go` (`golang`).",
    python: "Python for the `posthog` SDK (`python`).",
  }),
});

/** Generated code: REST's `{content, event_count, schema_hash, generator_version}`. */
export const EventDefinitionCodeRef = builder.objectRef<GeneratedCode>("EventDefinitionCode").implement({
  description:
    "Typed capture code for a project's events (PostHog's event definition code generators): the source file " +
    "and what tells a client when to regenerate it.",
  fields: (t) => ({
    content: t.exposeString("content", { description: "The generated source file." }),
    eventCount: t.exposeInt("eventCount", { description: "How many events the file covers." }),
    schemaHash: t.exposeString("schemaHash", {
      description:
        "32 hex digits over the events' schemas, the language and the generator version: regenerate when it " +
        "changes.",
    }),
    generatorVersion: t.exposeString("generatorVersion", {
      description: "The generator's version, e.g. `1.1.0`.",
    }),
  }),
});

builder.objectFields(ProjectRef, (t) => ({
  eventDefinitionCode: t.field({
    type: EventDefinitionCodeRef,
    nullable: true,
    description:
      "Typed capture code in `language` for the project's events not starting with `$`, plus `$pageview`, " +
      "`$pageleave` and `$screen`, with their event schemas' properties (REST `GET " +
      "event_definitions/<language>/`). Scope `event_definition:read`.",
    extensions: requiresScopes("event_definition:read"),
    args: {
      language: t.arg({ type: CodeLanguageEnum, required: true, description: "The language to generate." }),
    },
    resolve: async (project, { language }, ctx) =>
      ctx.services.eventDefinitions.code(await ctx.serviceContext(), project.id, language),
  }),
}));
