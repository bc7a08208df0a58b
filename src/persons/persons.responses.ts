/**
 * Persons in PostHog's REST shapes, each written once as a zod schema (fastify writes bodies with
 * them, the OpenAPI document names them). PostHog answers two shapes:
 * - retrieve (`GET persons/:id/`): `PersonSerializer` (`posthog/api/person.py`): the integer `id`;
 * - list (`GET persons/`): `SerializedPerson` (`posthog/queries/actor_base_query.py`
 *   `get_serialized_people`): `id` is the uuid there, with `type`, `is_identified`, `last_seen_at`.
 */
import { z } from "zod";

const name = z
  .unknown()
  .describe(
    "Display name: the first set property of email, Email, $email, name, Name, username, Username, UserName " +
      "(as stored), else an identified distinct id, else the first distinct id, else the integer id as text.",
  );
const properties = z.record(z.string(), z.unknown()).describe("The person's properties (free-form JSON).");

/** A person as `GET persons/:id/` answers it. */
export const personSchema = z
  .object({
    id: z.int().describe("PostHog's integer id of the person."),
    name,
    distinct_ids: z.array(z.string()).describe("Identified ids first, then anonymous ones."),
    properties,
    created_at: z.iso.datetime(),
    uuid: z.uuid().describe("The person's public id (events' `person_id`)."),
  })
  .meta({ id: "Person" });

/** A person as an item of `GET persons/` (PostHog's actor shape). */
export const listedPersonSchema = z
  .object({
    type: z.literal("person"),
    id: z.uuid().describe("The person's uuid (PostHog's actor id)."),
    uuid: z.uuid(),
    created_at: z.iso.datetime(),
    last_seen_at: z.iso
      .datetime()
      .nullable()
      .describe("When its latest event happened; null without events."),
    properties,
    is_identified: z.boolean(),
    name,
    distinct_ids: z.array(z.string()).describe("At most 1000."),
    matched_recordings: z.array(z.unknown()).describe("Always empty here (no recordings)."),
    value_at_data_point: z.number().nullable().describe("Always null here (no insight)."),
  })
  .meta({ id: "ListedPerson" });

const pageLink = z.url().nullable();

/** A page of `GET persons/`: no total unless `include_total` is set (PostHog's rule). */
export const personPageSchema = z
  .object({
    results: z.array(listedPersonSchema),
    next: pageLink.describe("Set when the page came back full."),
    previous: pageLink,
    count: z.int().optional().describe("All matches, only with `include_total`."),
  })
  .meta({ id: "PaginatedPersonList" });

/** A person in `GET persons/:id/`'s shape. */
export type PersonResponse = z.output<typeof personSchema>;
/** A person in `GET persons/`'s item shape. */
export type ListedPersonResponse = z.output<typeof listedPersonSchema>;
