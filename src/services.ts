/**
 * The domain services, built once by the composition root (src/app.ts) and shared by both front
 * doors: REST handlers and GraphQL resolvers call these same objects.
 */
import { createFeatureFlagService, type FeatureFlagService } from "./feature-flags/feature-flags.service.js";
import { createProjectService, type ProjectService } from "./projects/projects.service.js";
import { createUserService, type UserService } from "./users/users.service.js";

/** Every domain service. */
export interface Services {
  featureFlags: FeatureFlagService;
  projects: ProjectService;
  users: UserService;
}

/** Collaborators the services share; `now` is the clock (injectable for staleness tests). */
export interface ServiceDeps {
  now: () => Date;
}

/** Builds the services. */
export function createServices(deps: ServiceDeps = { now: () => new Date() }): Services {
  return {
    featureFlags: createFeatureFlagService(deps),
    projects: createProjectService(),
    users: createUserService(),
  };
}
