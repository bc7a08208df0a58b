/**
 * Webhooks in GraphQL: the `Webhook` type with its delivery log, its fields on `Project`, and the
 * write mutations. Thin adapters over webhooks.service.ts. The composition root imports this module.
 */
import "./webhook.type.js";
import "./project-fields.js";
import "./mutations.js";
