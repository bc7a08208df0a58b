/**
 * Typed capture code through the GraphQL door (`Project.eventDefinitionCode(language:)`), on both
 * backends: the same answer as REST's `event_definitions/<language>/` (one service), field by field;
 * the scope refused as on every project field.
 */
import { expect, it } from "vitest";
import { graphql } from "../generated/gql.js";
import { execute } from "../support/graphql.js";
import { describeEachBackend } from "../support/server.js";

const EventDefinitionCode = graphql(`
  query EventDefinitionCode($project: ID!, $language: CodeLanguage!) {
    project(id: $project) {
      eventDefinitionCode(language: $language) { content eventCount schemaHash generatorVersion }
    }
  }
`);

const NOW = new Date("2026-11-26T03:00:00.000Z");

describeEachBackend(
  "typed capture code over GraphQL",
  (server) => {
    it("answers what REST answers, for each language", async () => {
      const s = server();
      for (const name of ["checkout started", "$pageview", "$autocapture"]) {
        const created = await s.request("POST", `/api/projects/${s.projectId}/event_definitions/`, {
          body: { name },
        });
        expect(created.status, created.text).toBe(201);
      }
      for (const [language, path] of [
        ["TYPESCRIPT", "typescript"],
        ["GOLANG", "golang"],
        ["PYTHON", "python"],
      ] as const) {
        const answer = await execute(s, EventDefinitionCode, { project: String(s.projectId), language });
        expect(answer.errors, path).toBeUndefined();
        const rest = await s.request("GET", `/api/projects/${s.projectId}/event_definitions/${path}/`);
        expect(answer.data.project?.eventDefinitionCode, path).toEqual({
          content: rest.body.content,
          eventCount: 2,
          schemaHash: rest.body.schema_hash,
          generatorVersion: rest.body.generator_version,
        });
      }
    });

    it("refuses a key without event_definition:read, naming the scope", async () => {
      const s = server();
      const key = await s.createKey(["project:read"]);
      const answer = await execute(
        s,
        EventDefinitionCode,
        { project: String(s.projectId), language: "GOLANG" },
        key,
      );
      expect(answer.data.project?.eventDefinitionCode).toBeNull();
      expect(answer.errors).toHaveLength(1);
      expect(answer.errors?.[0]).toMatchObject({
        message: "API key missing required scope 'event_definition:read'",
        path: ["project", "eventDefinitionCode"],
        extensions: { code: "permission_denied" },
      });
    });
  },
  { now: () => NOW },
);
