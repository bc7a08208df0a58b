/**
 * The dashboards domain's published GraphQL reference: the `Dashboard` object type, which other
 * domains return (a flag's `usageDashboard`). Implemented in ./dashboard.type.ts; the one module of
 * this folder other domains may import.
 */
import { builder } from "../../graphql/builder.js";
import type { DashboardRecord } from "../dashboard-record.js";

/** The `Dashboard` object type (a node); implemented in ./dashboard.type.ts. */
export const DashboardRef = builder.objectRef<DashboardRecord>("Dashboard");
