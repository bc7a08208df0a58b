/**
 * Approvals in GraphQL (issue 27), one file per part: the types and typed errors, the `Project`
 * fields, the mutations and the `changeRequestChanged` subscription. A thin adapter over
 * approvals.service.ts, which owns every rule, scope check and message. The composition root imports
 * this module for the types it registers.
 */
import "./types.js";
import "./project-fields.js";
import "./mutations.js";
import "./subscriptions.js";
