/**
 * Typed capture code over REST (`event_definitions/typescript|golang|python/`, posthog-behavior.md
 * §6.4), on PGlite and PostgreSQL: PostHog's `{content, event_count, schema_hash,
 * generator_version}`; the project's events not starting with `$` plus `$pageview`, `$pageleave`,
 * `$screen`, by code point whatever the database's collation; a schema hash equal to one computed
 * here from §6.4's recipe, stable across calls, moving with the events, different per language;
 * nothing written; the scope, another project's events, a key limited to another project, and a
 * language we do not generate (taken for an `:id`: 404). The event schemas' properties reach the
 * generators through `schemaPropertiesByEvent` (event-schemas.queries.ts); every event here is
 * schema-less, event-schemas.rest.test.ts checks code carrying a schema, and the generators'
 * handling of properties is tested in codegen/.
 */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { expectNothingWritten } from "../support/db-dump.js";
import { describeEachBackend } from "../support/server.js";

const NOW = new Date("2026-11-26T03:00:00.000Z");

/** §6.4's hash, written out: SHA-256 of the key-sorted compact JSON, first 32 hex digits. */
function expectedHash(json: string): string {
  return createHash("sha256").update(json, "utf8").digest("hex").slice(0, 32);
}

describeEachBackend(
  "typed capture code over REST",
  (server) => {
    const base = (project = server().projectId) => `/api/projects/${project}/event_definitions`;
    const code = (language: string, options: { key?: string; project?: number; slash?: boolean } = {}) =>
      server().request("GET", `${base(options.project)}/${language}${options.slash === false ? "" : "/"}`, {
        ...(options.key ? { key: options.key } : {}),
      });
    const define = async (name: string, project?: number) => {
      const created = await server().request("POST", `${base(project)}/`, { body: { name } });
      expect(created.status, created.text).toBe(201);
    };

    /** The project's generated events, in the order the file has them. */
    const EVENTS = ["$pageleave", "$pageview", "$screen", "Zeta", "alpha", "signed up", "Ärger"];

    beforeAll(async () => {
      // Left out: other `$` events. Ordered by code point: `$` < upper case < lower case < `Ä`.
      for (const name of ["signed up", "$autocapture", "Ärger", "$pageview", "alpha", "$screen", "Zeta"]) {
        await define(name);
      }
      await define("$pageleave");
      await define("$identify");
      const other = await server().createProject("other codegen");
      await define("another project's event", other);
    });

    it("answers TypeScript as PostHog: content, event_count, schema_hash, generator_version", async () => {
      const answer = await code("typescript");
      expect(answer.status, answer.text).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual([
        "content",
        "event_count",
        "generator_version",
        "schema_hash",
      ]);
      expect(answer.body).toMatchObject({ event_count: EVENTS.length, generator_version: "1.1.0" });
      expect(answer.body.schema_hash).toMatch(/^[0-9a-f]{32}$/);
      const content: string = answer.body.content;
      expect(content).toContain(`Generated at: ${NOW.toISOString()}`);
      expect(content).toContain("import originalPostHog from 'posthog-js'");
      const listed = [...content.matchAll(/^ {4}("[^\n]*"): Record<string, any>$/gm)].map((m) =>
        JSON.parse(m[1]!),
      );
      expect(listed).toEqual(EVENTS);
      expect(content).not.toContain("another project's event");
      expect(content).not.toContain("$autocapture");
    });

    it("answers Go and Python with their generators and layouts", async () => {
      const go = await code("golang");
      expect(go.status, go.text).toBe(200);
      expect(go.body).toMatchObject({ event_count: EVENTS.length, generator_version: "1.0.0" });
      expect(go.body.content).toContain("package typed\n");
      const functions = [...go.body.content.matchAll(/^func (\w+)\(/gm)].map((m: RegExpMatchArray) => m[1]);
      // Schema-less events get both functions (golang.py `_generate_event_without_properties`).
      expect(functions).toEqual(
        ["Pageleave", "Pageview", "Screen", "Zeta", "Alpha", "SignedUp", "Rger"].flatMap((name) => [
          `${name}Capture`,
          `${name}CaptureFromBase`,
        ]),
      );
      const python = await code("python");
      expect(python.status, python.text).toBe(200);
      expect(python.body).toMatchObject({ event_count: EVENTS.length, generator_version: "1.0.0" });
      expect(python.body.content).toContain("class PosthogTyped(Posthog):\n");
      const methods = [...python.body.content.matchAll(/^ {4}def (capture_\w+)\(/gm)].map(
        (m: RegExpMatchArray) => m[1],
      );
      expect(methods).toEqual(
        ["pageleave", "pageview", "screen", "zeta", "alpha", "signed_up", "rger"].map(
          (name) => `capture_${name}`,
        ),
      );
      const literals = [
        ...python.body.content.matchAll(/return self\.capture\(("[^\n]*"), properties=/g),
      ].map((m: RegExpMatchArray) => JSON.parse(m[1]!));
      expect(literals).toEqual(EVENTS);
    });

    it("hashes as §6.4 says: language, version and each event's sorted properties, keys sorted", async () => {
      const schemas = JSON.stringify(EVENTS.map((name) => [name, []]));
      for (const [language, name, version] of [
        ["typescript", "TypeScript", "1.1.0"],
        ["golang", "Go", "1.0.0"],
        ["python", "Python", "1.0.0"],
      ] as const) {
        const answer = await code(language);
        const json = `{"language":"${name}","schemas":${schemas},"version":"${version}"}`;
        expect(answer.body.schema_hash, language).toBe(expectedHash(json));
      }
    });

    it("is stable across calls and with or without the trailing slash, and writes nothing", async () => {
      const s = server();
      for (const language of ["typescript", "golang", "python"]) {
        const first = await expectNothingWritten(s.db, language, () => code(language));
        const second = await code(language, { slash: false });
        expect(second.status, second.text).toBe(200);
        expect(second.body, language).toEqual(first.body);
      }
    });

    it("moves the hash when an event is added, and differs per language", async () => {
      const other = await server().createProject("hash moves");
      const before = await code("python", { project: other });
      expect(before.body).toMatchObject({ event_count: 0 });
      await define("new event", other);
      const after = await code("python", { project: other });
      expect(after.body).toMatchObject({ event_count: 1 });
      expect(after.body.schema_hash).not.toBe(before.body.schema_hash);
      const hashes = new Set<string>();
      for (const language of ["typescript", "golang", "python"]) {
        hashes.add((await code(language, { project: other })).body.schema_hash);
      }
      expect(hashes.size).toBe(3);
    });

    describe("authorization and bad input", () => {
      it("needs event_definition:read", async () => {
        const s = server();
        const reader = await s.createKey(["event_definition:read"]);
        const nothing = await s.createKey(["feature_flag:read"]);
        for (const language of ["typescript", "golang", "python"]) {
          const refused = await code(language, { key: nothing });
          expect(refused.status, language).toBe(403);
          expect(refused.body).toEqual({
            type: "authentication_error",
            code: "permission_denied",
            detail: "API key missing required scope 'event_definition:read'",
            attr: null,
          });
          expect((await code(language, { key: reader })).status, language).toBe(200);
        }
      });

      it("refuses a key limited to another project, and another organization's project", async () => {
        const s = server();
        const other = await s.createProject("limited elsewhere");
        const limited = await s.createKey(["*"], [other]);
        const answer = await code("golang", { key: limited });
        expect(answer.status).toBe(403);
        expect(answer.body.detail).toBe(
          `API key does not have access to the requested project: ID ${s.projectId}.`,
        );
        const foreign = await s.createForeignProject("not ours");
        const refused = await code("golang", { project: foreign });
        expect(refused.status).toBe(403);
        expect(refused.body.detail).toBe("You don't have access to the project.");
      });

      it("answers a language it does not generate as an :id that names no definition (404)", async () => {
        for (const language of ["ruby", "TypeScript", "go"]) {
          const answer = await code(language);
          expect(answer.status, language).toBe(404);
          expect(answer.body).toMatchObject({ type: "invalid_request", code: "not_found" });
        }
      });
    });
  },
  { now: () => NOW },
);
