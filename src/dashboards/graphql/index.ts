/**
 * Dashboards in GraphQL: the `Dashboard` node with its tiles, insights and each insight's Trends
 * result, the dashboard fields of `Project`, and the flag usage-dashboard mutations. Thin adapters
 * over dashboards.service.ts, which owns every rule, scope check and message. The composition root
 * imports this module for its types; `FeatureFlag.usageDashboard` is the flags domain's field.
 */
import "./dashboard.type.js";
import "./project-fields.js";
import "./mutations.js";
