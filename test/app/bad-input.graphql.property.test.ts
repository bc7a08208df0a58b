/**
 * Generated bad input on the GraphQL door (issue 6 §5), on PGlite and PostgreSQL: every mutation and
 * every field with arguments (found by walking the schema, as the auth matrix does) is called with
 * variables generated from its own input types: well-typed values with Unicode edge cases, NUL
 * characters, huge strings and JSON nested thousands deep, mixed with values of the wrong type and
 * malformed ids. Whatever comes in: never a 5xx, never the masked "Unexpected error.", no error
 * logged; refusals are GraphQL errors or typed errors with the database unchanged, and a successful
 * mutation answers its object. A NUL in any string input and JSON nested thousands deep in any JSON
 * input are refused with a typed ValidationError.
 *
 * fast-check runs a fixed number of cases from a fixed seed (`FAST_CHECK_SEED` overrides it) and
 * prints the seed and the shrunk variables of any failure.
 */
import { encodeGlobalID } from "@pothos/plugin-relay";
import fc from "fast-check";
import type { GraphQLInputField, GraphQLInputType } from "graphql";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { schema } from "../../src/composition.js";
import { createChangeRequestFixture, createPolicyFixture } from "../support/approvals.js";
import {
  deeplyNestedJson,
  edgeString,
  hugeString,
  jsonText,
  jsonValue,
  propertyRuns,
  stringWithNul,
} from "../support/arbitraries.js";
import { dumpRows } from "../support/db-dump.js";
import { createFlag } from "../support/flags.js";
import {
  type ArgumentFixtures,
  argumentKind,
  type FieldTarget,
  fieldTargets,
  fill,
  graphqlOfApp,
  hasTypedErrors,
  requiredFields,
  variablesDocumentFor,
} from "../support/graphql-operations.js";
import { itWhere } from "../support/it-where.js";
import { describeEachBackend, type TestResponse } from "../support/server.js";
import {
  createEndpointRecord,
  createEventDefinition,
  createEventSchema,
  createPropertyDefinition,
  createScheduledChange,
  createSchemaPropertyGroup,
  createTenancy,
  createWebhook,
  endpointName,
  type Tenancy,
} from "../support/tenancy.js";

const { getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType } = graphqlOfApp;

/** The kinds of object an `id` argument can name (see `argumentKind`). */
const OBJECT_KINDS = [
  "changeRequest",
  "approvalPolicy",
  "featureFlag",
  "cohort",
  "staticCohort",
  "person",
  "eventDefinition",
  "schemaPropertyGroup",
  "eventSchema",
  "endpoint",
  "experiment",
  "webhook",
  "scheduledChange",
];

/** Every field with arguments once (node reads are one target per Node type: keep the first). */
const TARGETS: FieldTarget[] = fieldTargets().filter(
  (target, i, all) =>
    target.path.some((field) => field.args.length > 0) &&
    all.findIndex(
      (other) => other.path.map((f) => f.name).join() === target.path.map((f) => f.name).join(),
    ) === i,
);
const MUTATIONS = TARGETS.filter((target) => target.operation === "mutation");

/** Every input field name of the schema: the vocabulary of generated JSON keys. */
const INPUT_NAMES = Object.values(schema.getTypeMap()).flatMap((type) =>
  isInputObjectType(type) ? Object.keys(type.getFields()) : [],
);

/** The fixtures generated ids mostly point at (so values get past the project check to validation). */
interface Fixtures {
  project: number;
  flag: number;
  cohort: number;
  staticCohort: number;
  /** A person's integer id. */
  person: number;
  /** An event definition's UUID. */
  eventDefinition: string;
  /** A schema property group's UUID, attached to `eventDefinition` by `eventSchema` (its UUID). */
  schemaPropertyGroup: string;
  eventSchema: string;
  /** A property definition's UUID. */
  propertyDefinition: string;
  /** A saved-query endpoint's UUID. */
  endpoint: string;
  /** A draft experiment's id. */
  experiment: number;
  /** A webhook's id (disabled: a property enqueues no delivery). */
  webhook: number;
  /** A scheduled change of `flag` (due in 2099: it never applies). */
  scheduledChange: number;
  /** A pending change request by another member (support/approvals.ts), and a policy no write matches. */
  changeRequest: string;
  approvalPolicy: string;
}

/** Paths (input field names from the argument) to every `String`/`[String]` or `JSON` leaf of `type`. */
function leafPaths(type: GraphQLInputType, scalar: "String" | "JSON", depth = 0): string[][] {
  const named = getNamedType(type);
  if (named.name === scalar) return [[]];
  if (!isInputObjectType(named) || depth > 3) return [];
  return Object.values(named.getFields()).flatMap((field: GraphQLInputField) =>
    leafPaths(field.type, scalar, depth + 1).map((path) => [field.name, ...path]),
  );
}

/**
 * `value` (of input type `type`) as a variable carries it: enum values by their GraphQL names.
 * `fill` gives an enum its internal value (what `astFromValue` prints as a name in a document, e.g.
 * `String` for `STRING`); as a variable that value is no name of the enum.
 */
function asVariable(value: unknown, type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (value === null || value === undefined) return value;
  if (isListType(inner)) {
    return Array.isArray(value)
      ? value.map((item) => asVariable(item, inner.ofType))
      : asVariable(value, inner.ofType);
  }
  if (isInputObjectType(inner) && typeof value === "object" && !Array.isArray(value)) {
    const fields = inner.getFields();
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        fields[key] ? asVariable(item, fields[key].type) : item,
      ]),
    );
  }
  if (isEnumType(inner))
    return inner.getValues().find((enumValue) => enumValue.value === value)?.name ?? value;
  return value;
}

/**
 * `base` with `value` set at `path`: objects on the way are created with their required fields from
 * `fixtures` (so only the value under test is wrong); a list-typed leaf gets the value as its one item.
 * Intermediate lists take one object, which GraphQL's input coercion reads as a list of one.
 */
function setAt(
  base: Record<string, unknown>,
  path: string[],
  value: unknown,
  type: GraphQLInputType,
  fixtures: ArgumentFixtures,
): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return isListType(isNonNullType(type) ? type.ofType : type) ? [value] : value;
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return value;
  const field = named.getFields()[head]!;
  const fieldType = getNamedType(field.type);
  const inner =
    (base[head] as Record<string, unknown> | undefined) ??
    (isInputObjectType(fieldType) ? requiredFields(fieldType, fixtures) : {});
  return { ...base, [head]: setAt(inner, rest, value, field.type, fixtures) };
}

describeEachBackend("GraphQL inputs under generated bad input", (server) => {
  let t: Tenancy;
  let fixtures: Fixtures;
  let keyCounter = 0;
  const freshKey = () => `gql-fuzz-${++keyCounter}`;

  beforeAll(async () => {
    t = await createTenancy(server(), "gqlfuzz");
  });

  /** Puts experiment `id` back as a live draft (what a property may have changed: dates, archived, deleted). */
  const resetExperiment = async (id: number) => {
    await server().db.experiment.update({
      where: { id },
      data: { deleted: false, archived: false, startDate: null, endDate: null, holdoutId: null },
    });
    return id;
  };

  // Each property works on a flag of its own: what one property manages to store cannot break the next.
  beforeEach(async () => {
    fixtures = {
      project: t.project,
      flag: (await createFlag(server(), { key: freshKey() }, t.project)).id,
      cohort: t.cohort,
      staticCohort: t.staticCohort,
      person: t.person.id,
      eventDefinition: await createEventDefinition(server(), t.project, freshKey()),
      schemaPropertyGroup: await createSchemaPropertyGroup(server(), t.project, freshKey()),
      eventSchema: "",
      propertyDefinition: await createPropertyDefinition(server(), t.project, freshKey()),
      endpoint: (await createEndpointRecord(server(), t.project, endpointName(freshKey()))).id,
      // A fresh experiment costs a flag and its usage dashboard: the tenancy's is put back as a live
      // draft instead (a fixture write), which is all a property can have changed.
      experiment: await resetExperiment(t.experiment),
      webhook: await createWebhook(server(), t.project),
      scheduledChange: 0,
      changeRequest: await createChangeRequestFixture(server(), t.project, t.flag),
      approvalPolicy: await createPolicyFixture(server(), t.project),
    };
    fixtures.scheduledChange = await createScheduledChange(server(), t.project, fixtures.flag);
    fixtures.eventSchema = await createEventSchema(
      server(),
      t.project,
      fixtures.eventDefinition,
      fixtures.schemaPropertyGroup,
    );
  });

  /** A scalar or enum value of `type`'s named type, well-typed but hostile. */
  const leafValue = (typeName: string): fc.Arbitrary<unknown> => {
    const type = schema.getType(typeName);
    if (type && isEnumType(type))
      return fc.oneof(fc.constantFrom(...type.getValues().map((v) => v.name)), edgeString);
    switch (typeName) {
      case "String":
        return fc.oneof({ weight: 6, arbitrary: edgeString }, stringWithNul, {
          weight: 1,
          arbitrary: hugeString,
        });
      case "Int":
        return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31, -(2 ** 31) - 1));
      case "Float":
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      case "Boolean":
        return fc.boolean();
      case "ID":
        return fc.oneof(edgeString, fc.integer().map(String), fc.constant(encodeGlobalID("Nope", "1")));
      case "JSON":
        return fc.oneof({ weight: 5, arbitrary: jsonValue(INPUT_NAMES) }, deeplyNestedJson);
      default:
        return edgeString;
    }
  };

  /**
   * A value for an argument or input field: of its type, with ids mostly the fixtures' (so values get
   * past the project check to validation); with `wrong`, any field may instead hold any JSON value.
   */
  const valueFor = (
    type: GraphQLInputType,
    context: string,
    name: string,
    wrong: boolean,
    depth = 0,
  ): fc.Arbitrary<unknown> => {
    const kind = argumentKind(context, name, OBJECT_KINDS);
    const right = (): fc.Arbitrary<unknown> => {
      if (kind === "project") return fc.constant(String(fixtures.project));
      if (kind === "featureFlag") return fc.constant(fixtures.flag);
      if (kind === "cohort") return fc.constant(fixtures.cohort);
      if (kind === "staticCohort") return fc.constant(fixtures.staticCohort);
      if (kind === "person") return fc.constant(String(fixtures.person));
      if (kind === "experiment") return fc.constant(String(fixtures.experiment));
      if (kind === "webhook") return fc.constant(String(fixtures.webhook));
      if (kind === "scheduledChange") return fc.constant(String(fixtures.scheduledChange));
      if (kind === "changeRequest") return fc.constant(fixtures.changeRequest);
      if (kind === "approvalPolicy") return fc.constant(fixtures.approvalPolicy);
      // Event definitions, groups, event schemas and endpoints: by `id`, or as the `<kind>Id` an input refers to.
      for (const uuidKind of ["eventDefinition", "schemaPropertyGroup", "eventSchema", "endpoint"] as const) {
        if (kind === uuidKind || name === `${uuidKind}Id`) return fc.constant(fixtures[uuidKind]);
      }
      if (kind === "node") {
        const own = encodeGlobalID("FeatureFlag", `${fixtures.project}:${fixtures.flag}`);
        const id = fc.oneof(fc.constant(own), leafValue("ID"));
        return isListType(isNonNullType(type) ? type.ofType : type) ? fc.array(id, { maxLength: 3 }) : id;
      }
      return typed(type, wrong, depth);
    };
    return wrong ? fc.oneof({ weight: 6, arbitrary: right() }, jsonValue(INPUT_NAMES)) : right();
  };

  /** A value of `type`: lists, input objects (optional fields may be absent) and leaves. */
  const typed = (type: GraphQLInputType, wrong: boolean, depth: number): fc.Arbitrary<unknown> => {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) return fc.array(typed(inner.ofType, wrong, depth + 1), { maxLength: 3 });
    if (isInputObjectType(inner)) {
      if (depth > 4) return fc.constant({});
      const fields = Object.values(inner.getFields());
      const record = Object.fromEntries(
        fields.map((f) => [f.name, valueFor(f.type, inner.name, f.name, wrong, depth + 1)]),
      );
      const requiredKeys = fields.filter((f) => isNonNullType(f.type)).map((f) => f.name);
      return fc.record(record, { requiredKeys });
    }
    return leafValue(inner.name);
  };

  /** Variables for every argument of `target`'s document: three in four well-typed, the others with wrong values. */
  const variablesFor = (target: FieldTarget) => {
    const { variables } = variablesDocumentFor(target);
    const record = (wrong: boolean) =>
      fc.record(
        Object.fromEntries(
          variables.map((v) => [v.name, valueFor(v.arg.type, v.context, v.arg.name, wrong)]),
        ),
        { requiredKeys: [] },
      );
    return fc.oneof({ weight: 3, arbitrary: record(false) }, { weight: 1, arbitrary: record(true) });
  };

  /**
   * Sends `target`'s document with `variables` and checks the invariants of the module comment.
   * Returns the response and the value of the target's root field.
   */
  const check = async (target: FieldTarget, variables: Record<string, unknown>) => {
    const s = server();
    const { query } = variablesDocumentFor(target);
    const logged = s.errorLogs.length;
    const before = await dumpRows(s.db);
    const response: TestResponse = await s.request("POST", "/graphql", {
      rawBody: `{"query":${JSON.stringify(query)},"variables":${jsonText(variables)}}`,
    });
    const what = `${target.name}: ${response.status} ${response.text.slice(0, 400)}`;
    expect(response.status, what).toBeLessThan(500);
    expect(s.errorLogs.slice(logged), `${what}: logged an error`).toEqual([]);
    expect(response.body, `${what}: not a GraphQL answer`).toBeTypeOf("object");
    for (const error of response.body.errors ?? []) {
      expect(error.message, what).toBeTypeOf("string");
      expect(error.message, `${what}: an unexpected error, masked`).not.toBe("Unexpected error.");
    }
    const root = response.body.data?.[target.path[0]!.name] as Record<string, unknown> | null | undefined;
    const succeeded =
      target.operation === "mutation" && root !== null && root !== undefined && root["code"] === undefined;
    if (succeeded) {
      const success = Object.values(root).find((value) => value !== null && typeof value === "object");
      expect(success, `${what}: a success without its object`).toMatchObject({ id: expect.any(String) });
    } else {
      expect(await dumpRows(s.db), `${what}: wrote to the database`).toEqual(before);
    }
    return { response, root };
  };

  for (const target of TARGETS) {
    describe(`${target.operation} ${target.name}`, () => {
      it("answers any variables without a 5xx, a masked error or a write unless it succeeds", async () => {
        await fc.assert(
          fc.asyncProperty(variablesFor(target), async (variables) => {
            await check(target, variables);
          }),
          propertyRuns(target.operation === "mutation" ? 40 : 15),
        );
      });
    });
  }

  for (const target of MUTATIONS) {
    const field = target.path[0]!;
    const input = field.args.find((arg) => isInputObjectType(getNamedType(arg.type)));
    if (!input || !hasTypedErrors(field)) continue;
    /** Argument fixtures: the own project and this property's flag. */
    const argumentFixtures = (): ArgumentFixtures => ({
      objects: {
        project: fixtures.project,
        featureFlag: fixtures.flag,
        cohort: fixtures.cohort,
        staticCohort: fixtures.staticCohort,
        person: fixtures.person,
        eventDefinition: fixtures.eventDefinition,
        schemaPropertyGroup: fixtures.schemaPropertyGroup,
        eventSchema: fixtures.eventSchema,
        propertyDefinition: fixtures.propertyDefinition,
        endpoint: fixtures.endpoint,
        experiment: fixtures.experiment,
        webhook: fixtures.webhook,
        scheduledChange: fixtures.scheduledChange,
        changeRequest: fixtures.changeRequest,
        approvalPolicy: fixtures.approvalPolicy,
      },
      node: "",
      key: freshKey,
      // A new approval policy's approvers, and a rejection's reason (required).
      values: {
        personIds: [t.person.uuid],
        personId: t.person.uuid,
        quorum: 1,
        reason: "fuzz",
      },
    });
    /** The input with just its required fields, from the fixtures. */
    const base = () => fill(input, field.name, argumentFixtures()) as Record<string, unknown>;
    const strings = leafPaths(input.type, "String");
    const jsons = leafPaths(input.type, "JSON");

    itWhere(strings.length > 0)(`${field.name}: a NUL in any string input is a ValidationError`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...strings), stringWithNul, async (path, text) => {
          const value = asVariable(setAt(base(), path, text, input.type, argumentFixtures()), input.type);
          const { root } = await check(target, { [`v0_${input.name}`]: value });
          expect(root, `NUL at ${path.join(".")}`).toMatchObject({
            __typename: "ValidationError",
            code: "null_characters_not_allowed",
            message: "Null characters are not allowed.",
          });
        }),
        propertyRuns(8),
      );
    });

    itWhere(jsons.length > 0)(`${field.name}: JSON nested thousands deep is a ValidationError`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...jsons), deeplyNestedJson, async (path, deep) => {
          const value = asVariable(setAt(base(), path, deep, input.type, argumentFixtures()), input.type);
          const { root } = await check(target, { [`v0_${input.name}`]: value });
          expect(root, `deep JSON at ${path.join(".")}`).toMatchObject({ __typename: "ValidationError" });
        }),
        propertyRuns(6),
      );
    });
  }
});
