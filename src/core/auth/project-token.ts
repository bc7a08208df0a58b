/**
 * The public project token (`phc_…`) SDKs send with events and flag requests: which project it
 * names. One indexed lookup (`projects.api_token` is unique), as PostHog's
 * `Team.objects.get_team_from_token` (posthog/models/team/team.py).
 */
import type { PrismaClient } from "../../generated/prisma/client.js";
import type { ProjectRecord } from "../records.js";

/** The project whose public token is `token`, or null when none is. */
export async function findProjectByToken(db: PrismaClient, token: string): Promise<ProjectRecord | null> {
  return db.project.findUnique({ where: { apiToken: token } });
}
