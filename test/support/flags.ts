/** Small helpers for tests that drive the feature-flag REST paths. */
import { expect } from "vitest";
import type { TestServer } from "./server.js";

/** `/api/projects/<project>/feature_flags/<suffix>` of the server's bootstrap project. */
export const flagsPath = (s: TestServer, suffix = "") =>
  `/api/projects/${s.projectId}/feature_flags/${suffix}`;

/**
 * Creates a flag through REST (POST, JSON) with the all-scopes key, in `project` (the bootstrap
 * project unless given), and returns its record; fails the test unless 201.
 */
export async function createFlag(s: TestServer, body: Record<string, unknown>, project = s.projectId) {
  const response = await s.request("POST", `/api/projects/${project}/feature_flags/`, { body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** `create_static_cohort_for_flag`'s path for flag `flagId` of `project`. */
export const staticCohortPath = (project: number, flagId: number | string) =>
  `/api/projects/${project}/feature_flags/${flagId}/create_static_cohort_for_flag/`;

/**
 * The uuids of a cohort's persons, sorted, read through `GET cohorts/:id/persons/` in one page;
 * fails the test when the cohort has more than one page (1,000 persons).
 */
export async function cohortMemberUuids(s: TestServer, project: number, cohortId: number): Promise<string[]> {
  const page = await s.request("GET", `/api/projects/${project}/cohorts/${cohortId}/persons/?limit=1000`);
  expect(page.status, page.text).toBe(200);
  expect(page.body.next).toBeNull();
  return page.body.results.map((person: { uuid: string }) => person.uuid).sort();
}
