/**
 * Persons in GraphQL, one file per type (hayes/pothos app layout): `Event`, `Person` and the person
 * fields of `Project`. A thin adapter over persons.service.ts, which owns every rule and scope check.
 * The composition root imports this module for the types it registers.
 */
import "./event.type.js";
import "./person.type.js";
import "./project-fields.js";
