/**
 * `GET /api/organizations/:organization_id/members/` as PostHog's `OrganizationMemberViewSet.list`
 * answers it (posthog/api/organization_member.py), through the real server on both backends: the
 * serializer's fields, DRF's limit/offset pages, the default `-joined_at` order and `?order=`,
 * `?email=`, the scope `organization_member:read`, and PostHog's refusals (a malformed or unknown
 * organization 404, another organization's 403, a key limited to projects or other organizations 403).
 */
import { beforeAll, expect, it } from "vitest";
import { type CreatedUser, createUser } from "../../src/users/users.service.js";
import { describeEachBackend } from "../support/server.js";

const denied = (detail: string) => ({
  type: "authentication_error",
  code: "permission_denied",
  detail,
  attr: null,
});
const ORGANIZATION_NOT_FOUND = {
  type: "invalid_request",
  code: "not_found",
  detail: "Organization not found.",
  attr: null,
};
/** DRF's timestamp as drfDateTime writes it. */
const DRF_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/;

describeEachBackend("organization members over REST", (server) => {
  let member: CreatedUser;
  const path = () => `/api/organizations/${server().organizationId}/members/`;

  beforeAll(async () => {
    member = await createUser(server().db, {
      email: "member@example.com",
      firstName: "Mia",
      level: "member",
      organizationId: server().organizationId,
    });
  });

  it("lists the members with PostHog's fields, newest membership first", async () => {
    const s = server();
    const response = await s.request("GET", path());
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ count: 2, next: null, previous: null });
    const [newest, owner] = response.body.results;
    const ownerMembership = await s.db.organizationMembership.findFirstOrThrow({
      where: { userId: s.userId, organizationId: s.organizationId },
    });
    expect(newest).toEqual({
      id: member.membership_id,
      user: {
        id: member.user_id,
        uuid: member.uuid,
        distinct_id: member.distinct_id,
        first_name: "Mia",
        last_name: "",
        email: "member@example.com",
        is_email_verified: false,
        hedgehog_config: null,
        role_at_organization: null,
      },
      level: 1,
      joined_at: expect.stringMatching(DRF_DATE_TIME),
      updated_at: newest.joined_at,
      is_2fa_enabled: false,
      has_social_auth: false,
      last_login: null,
    });
    expect(owner).toMatchObject({
      id: ownerMembership.id,
      user: { id: s.userId, email: "admin@example.com" },
      level: 15,
    });
    expect(Date.parse(newest.joined_at)).toBeGreaterThanOrEqual(Date.parse(owner.joined_at));
    // Without the trailing slash, as every path of the route table.
    const bare = await s.request("GET", path().slice(0, -1));
    expect(bare.status).toBe(200);
    expect(bare.body.results).toEqual(response.body.results);
  });

  it("pages with limit/offset, orders by ?order= and narrows by ?email=", async () => {
    const s = server();
    const first = await s.request("GET", `${path()}?limit=1`);
    expect(first.body.count).toBe(2);
    expect(first.body.results.map((m: { level: number }) => m.level)).toEqual([1]);
    const next = new URL(first.body.next);
    expect(next.searchParams.get("offset")).toBe("1");
    const second = await s.request("GET", `${next.pathname}${next.search}`);
    expect(second.body.results.map((m: { level: number }) => m.level)).toEqual([15]);
    expect(second.body.previous).not.toBeNull();
    const byLevel = await s.request("GET", `${path()}?order=-level`);
    expect(byLevel.body.results.map((m: { level: number }) => m.level)).toEqual([15, 1]);
    const byEmail = await s.request("GET", `${path()}?order=-user__email`);
    expect(byEmail.body.results.map((m: { user: { email: string } }) => m.user.email)).toEqual([
      "member@example.com",
      "admin@example.com",
    ]);
    const unknownOrder = await s.request("GET", `${path()}?order=password`);
    expect(unknownOrder.body.results.map((m: { level: number }) => m.level)).toEqual([1, 15]);
    const one = await s.request("GET", `${path()}?email=member%40example.com`);
    expect(one.body).toMatchObject({ count: 1, results: [{ id: member.membership_id }] });
    expect((await s.request("GET", `${path()}?email=nobody%40example.com`)).body.count).toBe(0);
  });

  it("leaves inactive users out", async () => {
    const s = server();
    const gone = await createUser(s.db, { email: "gone@example.com", level: "admin" });
    expect((await s.request("GET", path())).body.count).toBe(3);
    await s.db.user.update({ where: { id: gone.user_id }, data: { isActive: false } });
    const response = await s.request("GET", path());
    expect(response.body.count).toBe(2);
    expect(response.body.results.map((m: { id: string }) => m.id)).not.toContain(gone.membership_id);
  });

  it("answers a malformed organization id as the organization route does: 404", async () => {
    const s = server();
    const members = await s.request("GET", "/api/organizations/not-a-uuid/members/");
    const organization = await s.request("GET", "/api/organizations/not-a-uuid/");
    expect(members.status).toBe(404);
    expect(members.body).toEqual(ORGANIZATION_NOT_FOUND);
    expect(members.body).toEqual(organization.body);
    const numeric = await s.request("GET", "/api/organizations/12345/members/");
    expect({ status: numeric.status, body: numeric.body }).toEqual({
      status: 404,
      body: ORGANIZATION_NOT_FOUND,
    });
    const unknown = await s.request(
      "GET",
      "/api/organizations/00000000-0000-0000-0000-000000000000/members/",
    );
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: 404,
      body: ORGANIZATION_NOT_FOUND,
    });
  });

  it("requires organization_member:read (write satisfies it)", async () => {
    const s = server();
    const without = await s.createKey(["organization:read", "user:read"]);
    const refused = await s.request("GET", path(), { key: without });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 403,
      body: denied("API key missing required scope 'organization_member:read'"),
    });
    for (const scopes of [["organization_member:read"], ["organization_member:write"]]) {
      const key = await s.createKey(scopes);
      expect((await s.request("GET", path(), { key })).status).toBe(200);
    }
  });

  it("refuses another organization's members with PostHog's 403, and keys limited elsewhere", async () => {
    const s = server();
    const foreignProject = await s.createForeignProject("Elsewhere");
    const { organizationId: foreign } = await s.db.project.findUniqueOrThrow({
      where: { id: foreignProject },
    });
    const response = await s.request("GET", `/api/organizations/${foreign}/members/`);
    expect({ status: response.status, body: response.body }).toEqual({
      status: 403,
      body: denied("You do not have permission to perform this action."),
    });
    const projectLimited = await s.createKey(["*"], [s.projectId]);
    const byProject = await s.request("GET", path(), { key: projectLimited });
    expect({ status: byProject.status, body: byProject.body }).toEqual({
      status: 403,
      body: denied("API keys with scoped projects are only supported on project-based endpoints."),
    });
    const organizationLimited = await s.createKey(["*"], [], [s.organizationId]);
    expect((await s.request("GET", path(), { key: organizationLimited })).status).toBe(200);
  });

  it("answers 401 without a key", async () => {
    const response = await server().request("GET", path(), { key: null });
    expect(response.status).toBe(401);
  });
});
