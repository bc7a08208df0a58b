/**
 * Groups in GraphQL, one file per type (hayes/pothos app layout): `GroupType`, `Group`, the group
 * fields of `Project` and the `updateGroupType` mutation. A thin adapter over groups.service.ts,
 * which owns every rule and scope check. The composition root imports this module for its types.
 */
import "./group-type.type.js";
import "./group.type.js";
import "./project-fields.js";
import "./update-group-type.mutation.js";
