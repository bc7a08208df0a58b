/**
 * The result naming every mutation follows (plugin-errors): a mutation `<Name>` answers the union
 * `<Name>Result` of `<Name>Success`, which holds the written object in one field, and of the typed
 * errors it can fail with (src/graphql/errors.graphql.ts). Shared so that each domain names its
 * results the same way.
 */
import {
  AuthenticationError,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
} from "../core/errors.js";
import type { ErrorClass } from "./errors.graphql.js";

/** What any write can fail with: no valid key, no scope or access, no such project or object, bad input. */
export const WRITE_ERRORS: readonly ErrorClass[] = [
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ValidationError,
];

/**
 * plugin-errors options of mutation `name` (e.g. `CreateCohort`): its success's `field` (e.g.
 * `cohort`) holds `what` (e.g. `The cohort`) as `verb` (e.g. `created`); it fails with `types`.
 */
export function mutationResult(options: {
  name: string;
  field: string;
  what: string;
  verb: string;
  types: readonly ErrorClass[];
}) {
  const { name, field, what, verb } = options;
  return {
    types: [...options.types],
    union: { name: `${name}Result`, description: `${what} ${verb}, or why not.` },
    result: { name: `${name}Success`, description: `${what} was ${verb}.` },
    dataField: { name: field, description: `${what} as ${verb}.` },
  };
}
