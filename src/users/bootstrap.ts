/**
 * First-run set-up for the CLI's `bootstrap`: an organization, a project and a user, created once
 * and reused after, plus a new personal API key with every scope on each run (keys are shown once).
 */
import { generateProjectApiToken } from "../core/auth/api-keys.js";
import type { PrismaClient } from "../generated/prisma/client.js";
import { createPersonalApiKey } from "./users.service.js";

/** Who and what to create on first run. */
export interface BootstrapOptions {
  email: string;
  organizationName: string;
  projectName: string;
}

/** What `bootstrap` prints (PostHog names). */
export interface BootstrapResult {
  project_id: number;
  project_api_token: string;
  personal_api_key: string;
}

/** Owner membership level (PostHog `OrganizationMembership.Level.OWNER`). */
const OWNER = 15;

/**
 * Finds or creates the user (by e-mail), its first organization and that organization's first
 * project, in one transaction; then issues a new `*` key for the user.
 */
export async function bootstrap(db: PrismaClient, options: BootstrapOptions): Promise<BootstrapResult> {
  const { userId, project } = await db.$transaction(async (tx) => {
    const user =
      (await tx.user.findUnique({ where: { email: options.email } })) ??
      (await tx.user.create({
        data: {
          email: options.email,
          distinctId: crypto.randomUUID(),
          firstName: options.email.split("@")[0] ?? "",
        },
      }));
    const membership = await tx.organizationMembership.findFirst({
      where: { userId: user.id },
      orderBy: { createdAt: "asc" },
    });
    const organizationId =
      membership?.organizationId ??
      (
        await tx.organization.create({
          data: {
            name: options.organizationName,
            memberships: { create: { userId: user.id, level: OWNER } },
          },
        })
      ).id;
    const project =
      (await tx.project.findFirst({ where: { organizationId }, orderBy: { id: "asc" } })) ??
      (await tx.project.create({
        data: { organizationId, name: options.projectName, apiToken: generateProjectApiToken() },
      }));
    if (user.currentProjectId === null) {
      await tx.user.update({ where: { id: user.id }, data: { currentProjectId: project.id } });
    }
    return { userId: user.id, project };
  });
  const { key } = await createPersonalApiKey(db, {
    userId,
    label: `bootstrap ${new Date().toISOString().slice(0, 19)}`,
    scopes: ["*"],
  });
  return { project_id: project.id, project_api_token: project.apiToken, personal_api_key: key };
}
