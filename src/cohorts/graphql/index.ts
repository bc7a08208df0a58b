/**
 * Cohorts in GraphQL, one file per type: the enums, the `Cohort` node and its persons, its fields on
 * `Project`, and the mutations with their inputs. A thin adapter over cohorts.service.ts, which owns
 * every rule, scope check and message. The composition root imports this module for its types.
 */
import "./enums.js";
import "./cohort.type.js";
import "./project-fields.js";
import "./create.mutation.js";
import "./update.mutations.js";
import "./members.mutations.js";
