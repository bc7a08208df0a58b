/**
 * Scheduled changes in GraphQL: the `ScheduledChange` type (a node), `FeatureFlag.scheduledChanges`
 * (a connection), and the create, update and delete mutations. Thin adapters over
 * scheduled-changes.service.ts, which owns every rule, scope check and message. The composition root
 * imports this module for the types it registers.
 */
import "./scheduled-change.type.js";
import "./feature-flag-fields.js";
import "./mutations.js";
