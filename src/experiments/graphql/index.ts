/**
 * Experiments in GraphQL: the `Experiment` node with its flag, holdout and saved metrics, its fields
 * on `Project`, the lifecycle mutations and its results (results.field.ts). Thin adapters over experiments.service.ts, which owns
 * every rule, scope check and message. The composition root imports this module for its types.
 */
import "./experiment.type.js";
import "./project-fields.js";
import "./mutations.js";
import "./subscriptions.js";
import "./results.field.js";
import "./versions.fields.js";
