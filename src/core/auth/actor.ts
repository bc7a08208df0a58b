/**
 * The authenticated caller of a request, as every door and service sees it: the user, the personal
 * API key (never its value) and what it may reach. Types only, shared by authentication
 * (authenticate.ts), its cache (actor-cache.ts) and the service context without a cycle.
 */
import type { ProjectRecord, UserBasic } from "../records.js";

/** The user behind a key: PostHog's UserBasic and the project the user works in. */
export interface ActorUser extends UserBasic {
  currentProjectId: number | null;
}

/** The key itself: what it may do and where. Never holds the key's value. */
export interface ActorKey {
  id: string;
  label: string;
  maskValue: string;
  scopes: string[];
  /** Project ids the key is limited to; empty = all of the user's projects. */
  scopedTeams: number[];
  /** Organization ids the key is limited to; empty = all of the user's organizations. */
  scopedOrganizations: string[];
}

/** The authenticated caller of a request. */
export interface Actor {
  user: ActorUser;
  apiKey: ActorKey;
  /** Organizations the user is a member of. */
  organizationIds: string[];
  /**
   * Projects of those organizations read with the key (the one the request names, or the first
   * `PRELOADED_PROJECTS` of each), so that authorising a request for one of them costs no statement
   * of its own. Not yet checked against the key's limits or scopes: `authorizeProject` does that.
   */
  projects: ProjectRecord[];
}
