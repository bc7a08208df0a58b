/**
 * Schema property groups and event schemas over REST (`schema_property_groups/`, `event_schemas/`),
 * on PGlite and PostgreSQL: PostHog's shapes, create with nested properties, PATCH/PUT replacing
 * the properties in one transaction, DELETE cascading to event schemas, the event-schema list
 * filtered by event definition; bad input with PostHog's messages, missing scopes, other projects'
 * ids, activity entries; the shared reader `schemaPropertiesByEvent` the code generators use, and
 * the generated code carrying an event's schema (`event_definitions/typescript/`).
 */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { schemaPropertiesByEvent } from "../../src/event-definitions/event-schemas.queries.js";
import { describeEachBackend, type TestServer } from "../support/server.js";
import { createEventDefinition } from "../support/tenancy.js";

describeEachBackend("event schemas over REST", (server) => {
  const groups = (project = server().projectId) => `/api/projects/${project}/schema_property_groups`;
  const schemas = (project = server().projectId) => `/api/projects/${project}/event_schemas`;
  const createGroup = (body: Record<string, unknown>, project?: number) =>
    server().request("POST", `${groups(project)}/`, { body });
  const attach = (event_definition: string, property_group_id: string, project?: number) =>
    server().request("POST", `${schemas(project)}/`, { body: { event_definition, property_group_id } });
  const activity = (s: TestServer, scope: string, itemId: string) =>
    s.db.activityLog.findMany({ where: { scope, itemId }, orderBy: { createdAt: "asc" } });

  it("creates a group with its properties in PostHog's shape, properties by name", async () => {
    const s = server();
    const created = await createGroup({
      name: " User Info ",
      description: "Basic user information",
      properties: [
        {
          name: "user_id",
          property_type: "String",
          is_required: true,
          description: "User ID",
          id: "ignored",
        },
        { name: "email", property_type: "String" },
      ],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "User Info",
      description: "Basic user information",
      properties: [
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: "email",
          property_type: "String",
          is_required: false,
          description: "",
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: "user_id",
          property_type: "String",
          is_required: true,
          description: "User ID",
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      events: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
      created_by: expect.objectContaining({ id: s.userId, email: expect.any(String) }),
    });
    const read = await s.request("GET", `${groups()}/${created.body.id}/`);
    expect(read.body).toEqual(created.body);
    const listed = await s.request("GET", `${groups()}/`);
    expect(listed.body).toMatchObject({ count: expect.any(Number), next: null, previous: null });
    expect(listed.body.results.map((g: { name: string }) => g.name)).toContain("User Info");
    expect(await activity(s, "SchemaPropertyGroup", created.body.id)).toMatchObject([
      { activity: "created", detail: expect.objectContaining({ name: "User Info" }) },
    ]);
  });

  it("refuses bad input with PostHog's messages and writes nothing", async () => {
    await createGroup({ name: "taken" });
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{}, { code: "required", attr: "name", detail: "This field is required." }],
      [{ name: "  " }, { code: "blank", attr: "name" }],
      [
        { name: "taken" },
        {
          code: "invalid_input",
          attr: "name",
          detail: "A property group with this name already exists for this team",
        },
      ],
      [
        { name: "g", properties: "x" },
        { code: "not_a_list", attr: "properties" },
      ],
      [
        { name: "g", properties: [{ name: "123invalid", property_type: "String" }] },
        {
          code: "invalid_input",
          attr: "properties__0__name",
          detail:
            "Property name must start with a letter or underscore and contain only letters, numbers, and underscores",
        },
      ],
      [
        { name: "g", properties: [{ name: "ok", property_type: "Duration" }] },
        {
          code: "invalid_choice",
          attr: "properties__0__property_type",
          detail: '"Duration" is not a valid choice.',
        },
      ],
      [
        { name: "g", properties: [{ name: "ok" }] },
        { code: "required", attr: "properties__0__property_type" },
      ],
      [
        {
          name: "g",
          properties: [
            { name: "a", property_type: "String" },
            { name: "a", property_type: "Numeric" },
          ],
        },
        {
          code: "invalid_input",
          attr: "properties",
          detail: "A property named 'a' already exists in this group",
        },
      ],
    ];
    for (const [body, error] of cases) {
      const answer = await createGroup(body);
      expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).toBe(400);
      expect(answer.body, JSON.stringify(body)).toMatchObject({ type: "validation_error", ...error });
    }
    expect(await server().db.schemaPropertyGroup.count({ where: { name: "g" } })).toBe(0);
  });

  it("PATCH replaces the properties atomically, PUT needs a name, a taken name is refused", async () => {
    const s = server();
    const group = (
      await createGroup({
        name: "Replace me",
        properties: [
          { name: "prop1", property_type: "String" },
          { name: "prop2", property_type: "Numeric" },
        ],
      })
    ).body;
    await createGroup({ name: "Other group" });
    const patched = await s.request("PATCH", `${groups()}/${group.id}/`, {
      body: {
        description: "changed",
        properties: [
          { id: group.properties[0].id, name: "prop1", property_type: "String" },
          { name: "prop3", property_type: "Boolean", is_required: true },
        ],
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: "Replace me", description: "changed" });
    expect(patched.body.properties.map((p: { name: string }) => p.name)).toEqual(["prop1", "prop3"]);

    // A failing replacement leaves the old list whole.
    const duplicate = await s.request("PATCH", `${groups()}/${group.id}/`, {
      body: {
        properties: [
          { name: "x", property_type: "String" },
          { name: "x", property_type: "String" },
        ],
      },
    });
    expect(duplicate.body).toMatchObject({
      attr: "properties",
      detail: "A property named 'x' already exists in this group",
    });
    const kept = await s.request("GET", `${groups()}/${group.id}/`);
    expect(kept.body.properties.map((p: { name: string }) => p.name)).toEqual(["prop1", "prop3"]);

    const taken = await s.request("PATCH", `${groups()}/${group.id}/`, { body: { name: "Other group" } });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({
      attr: "name",
      detail: "A property group with this name already exists",
    });
    const put = await s.request("PUT", `${groups()}/${group.id}/`, { body: { description: "x" } });
    expect(put.body).toMatchObject({ code: "required", attr: "name" });
    const renamed = await s.request("PUT", `${groups()}/${group.id}/`, { body: { name: "Renamed" } });
    expect(renamed.status, renamed.text).toBe(200);
    // PUT without `properties` keeps them (PostHog's serializer: `required=False`).
    expect(renamed.body).toMatchObject({ name: "Renamed", description: "changed" });
    expect(renamed.body.properties).toHaveLength(2);
    const entries = await activity(s, "SchemaPropertyGroup", group.id);
    expect(entries.map((e) => e.activity)).toEqual(["created", "changed", "changed"]);
    expect(JSON.stringify(entries[1]!.detail)).toContain("prop3");
  });

  describe("event schemas", () => {
    let event: string;
    let group: { id: string; name: string };
    beforeAll(async () => {
      event = await createEventDefinition(server(), server().projectId, "file uploaded");
      group = (
        await createGroup({
          name: "Upload",
          properties: [
            { name: "file_name", property_type: "String", is_required: true },
            { name: "file_size", property_type: "Numeric" },
          ],
        })
      ).body;
    });

    it("attaches a group, lists by event definition, refuses a second link, detaches", async () => {
      const s = server();
      const attached = await attach(event, group.id.toUpperCase());
      expect(attached.status, attached.text).toBe(201);
      expect(attached.body).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        event_definition: event,
        property_group: { id: group.id, name: "Upload", events: [{ id: event, name: "file uploaded" }] },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const again = await attach(event, group.id);
      expect(again.status).toBe(400);
      expect(again.body).toEqual({
        type: "validation_error",
        code: "unique",
        detail: "The fields event_definition, property_group_id must make a unique set.",
        attr: null,
      });
      const listed = await s.request("GET", `${schemas()}/?event_definition=${event}`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.count).toBe(1);
      expect(listed.body.results[0].id).toBe(attached.body.id);
      const badFilter = await s.request("GET", `${schemas()}/?event_definition=nope`);
      expect(badFilter.body).toMatchObject({
        attr: "event_definition",
        detail: "“nope” is not a valid UUID.",
      });

      const removed = await s.request("DELETE", `${schemas()}/${attached.body.id}/`);
      expect(removed.status).toBe(204);
      expect(removed.text).toBe("");
      expect((await s.request("GET", `${schemas()}/?event_definition=${event}`)).body.count).toBe(0);
      expect((await activity(s, "EventSchema", attached.body.id)).map((e) => [e.activity, e.detail])).toEqual(
        [
          ["created", expect.objectContaining({ name: "file uploaded → Upload" })],
          ["deleted", expect.objectContaining({ name: "file uploaded → Upload" })],
        ],
      );
      expect((await s.request("DELETE", `${schemas()}/${attached.body.id}/`)).status).toBe(404);
    });

    it("refuses ids that are missing, malformed or of another project", async () => {
      const s = server();
      const other = await s.createProject("schemas other");
      const otherEvent = await createEventDefinition(s, other, "elsewhere");
      const otherGroup = (await createGroup({ name: "Elsewhere" }, other)).body;
      const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
        [{ property_group_id: group.id }, { code: "required", attr: "event_definition" }],
        [
          { event_definition: null, property_group_id: group.id },
          { code: "null", attr: "event_definition" },
        ],
        [
          { event_definition: "abc", property_group_id: group.id },
          { code: "invalid_input", attr: "event_definition", detail: "“abc” is not a valid UUID." },
        ],
        [
          { event_definition: 5, property_group_id: group.id },
          { code: "incorrect_type", detail: "Incorrect type. Expected pk value, received int." },
        ],
        [
          { event_definition: otherEvent, property_group_id: group.id },
          {
            code: "does_not_exist",
            attr: "event_definition",
            detail: `Invalid pk "${otherEvent}" - object does not exist.`,
          },
        ],
        [
          { event_definition: event, property_group_id: otherGroup.id },
          { code: "does_not_exist", attr: "property_group_id" },
        ],
      ];
      for (const [body, error] of cases) {
        const answer = await s.request("POST", `${schemas()}/`, { body });
        expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).toBe(400);
        expect(answer.body, JSON.stringify(body)).toMatchObject({ type: "validation_error", ...error });
      }
      expect((await s.request("GET", `${groups()}/${otherGroup.id}/`)).status).toBe(404);
      expect((await s.request("GET", `${groups()}/not-a-uuid/`)).status).toBe(404);
      expect(
        (await s.request("PATCH", `${groups()}/${otherGroup.id}/`, { body: { name: "x" } })).status,
      ).toBe(404);
      expect((await s.request("DELETE", `${groups()}/${otherGroup.id}/`)).status).toBe(404);
    });

    it("answers a key without the scopes PostHog's viewsets need", async () => {
      const s = server();
      const reader = await s.createKey(["event_definition:read"]);
      const refused = await s.request("POST", `${groups()}/`, { key: reader, body: { name: "no" } });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toBe("API key missing required scope 'event_definition:write'");
      const unrelated = await s.createKey(["feature_flag:read"]);
      const list = await s.request("GET", `${schemas()}/`, { key: unrelated });
      expect(list.status).toBe(403);
      expect(list.body.detail).toBe("API key missing required scope 'event_definition:read'");
      expect((await s.request("GET", `${groups()}/`, { key: reader })).status).toBe(200);
    });

    it("deleting a group in use detaches it from its events; deleting an event keeps the group", async () => {
      const s = server();
      const doomed = (
        await createGroup({ name: "Doomed", properties: [{ name: "a", property_type: "String" }] })
      ).body;
      const link = (await attach(event, doomed.id)).body;
      expect((await s.request("DELETE", `${groups()}/${doomed.id}/`)).status).toBe(204);
      expect(await s.db.eventSchema.count({ where: { id: link.id } })).toBe(0);
      expect(await s.db.schemaPropertyGroupProperty.count({ where: { propertyGroupId: doomed.id } })).toBe(0);

      const shortLived = await createEventDefinition(s, s.projectId, "short lived");
      const kept = (await createGroup({ name: "Kept" })).body;
      await attach(shortLived, kept.id);
      expect(
        (await s.request("DELETE", `/api/projects/${s.projectId}/event_definitions/${shortLived}/`)).status,
      ).toBe(204);
      const after = await s.request("GET", `${groups()}/${kept.id}/`);
      expect(after.status).toBe(200);
      expect(after.body.events).toEqual([]);
    });
  });

  it("schemaPropertiesByEvent: per event, every declaration of its groups (groups by name, properties by name)", async () => {
    const s = server();
    const project = await s.createProject("reader");
    const checkout = await createEventDefinition(s, project, "checkout");
    const signup = await createEventDefinition(s, project, "$signup");
    await createEventDefinition(s, project, "no schema");
    const a = (
      await createGroup(
        {
          name: "A",
          properties: [
            { name: "amount", property_type: "Numeric", is_required: true },
            { name: "currency", property_type: "String", is_required: true },
            { name: "coupon", property_type: "String" },
          ],
        },
        project,
      )
    ).body;
    const b = (
      await createGroup(
        {
          name: "B",
          properties: [
            { name: "currency", property_type: "String", is_required: false },
            { name: "amount", property_type: "Numeric", is_required: true },
            { name: "at", property_type: "DateTime", is_required: true },
          ],
        },
        project,
      )
    ).body;
    const empty = (await createGroup({ name: "Empty" }, project)).body;
    for (const [event, group] of [
      [checkout, a.id],
      [checkout, b.id],
      [signup, b.id],
      [signup, empty.id],
    ] as const) {
      expect((await attach(event, group, project)).status).toBe(201);
    }
    const map = await schemaPropertiesByEvent(s.db, project);
    expect([...map.keys()].sort()).toEqual(["$signup", "checkout"]);
    // Duplicates across groups are kept, as PostHog's base.py hands them to the generators (which merge
    // them, and hash them as declared).
    expect(map.get("checkout")).toEqual([
      { name: "amount", propertyType: "Numeric", isRequired: true },
      { name: "coupon", propertyType: "String", isRequired: false },
      { name: "currency", propertyType: "String", isRequired: true },
      { name: "amount", propertyType: "Numeric", isRequired: true },
      { name: "at", propertyType: "DateTime", isRequired: true },
      { name: "currency", propertyType: "String", isRequired: false },
    ]);
    expect(map.get("$signup")).toEqual([
      { name: "amount", propertyType: "Numeric", isRequired: true },
      { name: "at", propertyType: "DateTime", isRequired: true },
      { name: "currency", propertyType: "String", isRequired: false },
    ]);
    // Another project's schemas are not read.
    expect((await schemaPropertiesByEvent(s.db, s.projectId)).has("checkout")).toBe(false);
  });

  it("generated code carries the event schemas: types united, optional unless every group requires, hash as declared", async () => {
    const s = server();
    const project = await s.createProject("codegen schemas");
    const event = await createEventDefinition(s, project, "checkout done");
    const base = (
      await createGroup(
        {
          name: "Base",
          properties: [
            { name: "amount", property_type: "Numeric", is_required: true },
            { name: "file_name", property_type: "String", is_required: true },
          ],
        },
        project,
      )
    ).body;
    const loose = (
      await createGroup({ name: "Loose", properties: [{ name: "amount", property_type: "String" }] }, project)
    ).body;
    for (const group of [base.id, loose.id]) expect((await attach(event, group, project)).status).toBe(201);
    const answer = await s.request("GET", `/api/projects/${project}/event_definitions/typescript/`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.event_count).toBe(1);
    expect(answer.body.content).toContain('"checkout done": {');
    expect(answer.body.content).toContain('"amount"?: number | string');
    expect(answer.body.content).toContain('"file_name": string');
    // PostHog's base.py hashes every declaration, the duplicate `amount` included.
    const json =
      '{"language":"TypeScript","schemas":[["checkout done",[["amount","Numeric",true],["amount","String",false],' +
      '["file_name","String",true]]]],"version":"1.1.0"}';
    expect(answer.body.schema_hash).toBe(
      createHash("sha256").update(json, "utf8").digest("hex").slice(0, 32),
    );
  });
});
