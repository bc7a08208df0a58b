/**
 * Projects and organizations on PostHog's paths (posthog/api/project.py, posthog/api/organization.py):
 * how a PostHog client finds its `project_id`.
 */

import { z } from "zod";
import type { Organization, Project } from "../generated/prisma/client.js";
import { drfDateTime } from "../rest/date-time.js";
import {
  offsetPageBody,
  offsetPageQuerySchema,
  paginatedListSchema,
  parseOffsetPage,
} from "../rest/pagination.js";
import type { RestModule } from "../rest/route.js";
import { pathId } from "../rest/routes.js";
import { projectSchema, serializeProject } from "../rest/serializers.js";

/** An organization with the projects the key can reach (PostHog's `OrganizationSerializer`, in part). */
const organizationSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    membership_level: z.int().nullable().describe("1 member, 8 admin, 15 owner."),
    projects: z.array(z.object({ id: z.int(), name: z.string() })),
    teams: z.array(z.object({ id: z.int(), name: z.string(), api_token: z.string() })),
  })
  .meta({ id: "Organization" });

const projectPageSchema = paginatedListSchema(projectSchema, "PaginatedProjectList");

/** The organization routes' path parameter: organizations are named by UUID. */
const organizationPath = z.object({ organization_id: z.uuid() });

function serializeOrganization(
  organization: Organization & { projects: Project[]; membershipLevel: number | null },
): z.output<typeof organizationSchema> {
  return {
    id: organization.id,
    name: organization.name,
    created_at: drfDateTime(organization.createdAt),
    updated_at: drfDateTime(organization.updatedAt),
    membership_level: organization.membershipLevel,
    projects: organization.projects.map((p) => ({ id: p.id, name: p.name })),
    teams: organization.projects.map((p) => ({ id: p.id, name: p.name, api_token: p.apiToken })),
  };
}

/** The project and organization routes. */
export const projectRoutes: RestModule = (services, limits) => {
  const projects = services.projects;
  const listPage = async (
    query: URLSearchParams,
    url: URL,
    ctx: Parameters<typeof projects.listProjects>[0],
    org?: string,
  ) => {
    const page = parseOffsetPage(query, limits);
    return { body: offsetPageBody(url, page, await projects.listProjects(ctx, page, org), serializeProject) };
  };
  return [
    {
      method: "GET",
      path: "/api/projects/",
      summary: "The projects the key can reach, oldest first, limit/offset pages.",
      scopes: ["project:read"],
      request: { query: offsetPageQuerySchema },
      responses: { 200: projectPageSchema },
      handler: ({ query, url, ctx }) => listPage(query, url, ctx),
    },
    {
      method: "GET",
      path: "/api/projects/:project_id/",
      summary: "One project.",
      scopes: ["project:read"],
      responses: { 200: projectSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeProject(await projects.getProject(ctx, pathId(params, "project_id"))),
      }),
    },
    {
      method: "GET",
      path: "/api/organizations/:organization_id/",
      summary: "One organization of the user, with the projects the key can reach.",
      scopes: ["organization:read"],
      request: { params: organizationPath },
      responses: { 200: organizationSchema },
      handler: async ({ params, ctx }) => ({
        body: serializeOrganization(await projects.getOrganization(ctx, params["organization_id"]!)),
      }),
    },
    {
      method: "GET",
      path: "/api/organizations/:organization_id/projects/",
      summary: "The organization's projects the key can reach, limit/offset pages.",
      scopes: ["organization:read", "project:read"],
      request: { params: organizationPath, query: offsetPageQuerySchema },
      responses: { 200: projectPageSchema },
      handler: async ({ params, query, url, ctx }) => {
        // Reaching the organization first gives PostHog's 404 for an organization the user is not in.
        await projects.getOrganization(ctx, params["organization_id"]!);
        return listPage(query, url, ctx, params["organization_id"]!);
      },
    },
  ];
};
