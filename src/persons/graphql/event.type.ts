/**
 * The `Event` object type: a captured event as the person service reads it (persons/events.queries.ts).
 * Not a node: events are read through their person.
 */
import { builder } from "../../graphql/builder.js";
import type { EventRecord } from "../events.queries.js";

/** The `Event` object type. */
export const EventRef = builder.objectRef<EventRecord>("Event").implement({
  description:
    "A captured event (PostHog's event: `uuid`, `event`, `distinct_id`, `properties`, `timestamp`).",
  fields: (t) => ({
    uuid: t.expose("uuid", {
      type: "UUID",
      description: "The event's id (the client's, or given at capture).",
    }),
    event: t.exposeString("event", { description: "Its name, e.g. `$pageview`." }),
    distinctId: t.exposeString("distinctId", { description: "The distinct id it was sent with." }),
    personId: t.expose("personId", {
      type: "UUID",
      nullable: true,
      description: "The uuid of the person it was stored with; null when none.",
    }),
    properties: t.expose("properties", { type: "JSON", description: "Its properties, as sent." }),
    timestamp: t.expose("timestamp", {
      type: "DateTime",
      description: "When it happened (after `sent_at` clock-skew correction).",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the server received it." }),
    elementsChain: t.exposeString("elementsChain", {
      description: "Autocapture elements in PostHog's `elements_chain` text form; empty for other events.",
    }),
  }),
});
