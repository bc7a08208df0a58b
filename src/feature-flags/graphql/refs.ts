/**
 * The feature flags' published GraphQL reference: the `FeatureFlag` object type, which other domains
 * extend with fields of their own (scheduled changes' `FeatureFlag.scheduledChanges`). Implemented in
 * ./feature-flag.type.ts; the one module of this folder other domains may import. A field another
 * domain adds reads only the flag's `id` and `projectId`, which every read of a flag brings.
 */
import { builder } from "../../graphql/builder.js";
import type { FlagColumn, FlagPartKey, FlagRecord, FlagRecordWith } from "../feature-flags.queries.js";

/**
 * The parts whose fields are named after them and show them as read: the columns that are never
 * null, the users and the tag lists. Their fields need no resolver (graphql-jit reads them inline).
 */
type InlinePart =
  | { [C in FlagColumn]: null extends FlagRecord[C] ? never : C }[FlagColumn]
  | "createdBy"
  | "lastModifiedBy"
  | "tags"
  | "evaluationTags";

/**
 * A flag as `FeatureFlag` resolves it: a whole record (single reads, nodes, mutations), or a page's
 * record with only the parts its selection shows (`flagPartsFor`). The inline parts are typed as
 * present: a page brings the part of every selected field named after one (a missing one would show
 * as null, which test/graphql/feature-flags.graphql.test.ts rules out field by field). Everything
 * else, and every part a computed field reads, goes through `part`, which fails on a missing one.
 */
export type FlagView = FlagRecordWith<InlinePart> & Partial<Pick<FlagRecord, FlagPartKey>>;

/** The `FeatureFlag` object type (a node); implemented in ./feature-flag.type.ts. */
export const FeatureFlagRef = builder.objectRef<FlagView>("FeatureFlag");
