/**
 * PostHog's Trends vectors (./vectors.ts) on every analytics store (./stores.ts): PGlite,
 * PostgreSQL, and ClickHouse on chdb, the same cases and assertions.
 */
import { describeEachStore } from "./stores.js";
import { postHogVectors } from "./vectors.js";

describeEachStore("Trends: PostHog's vectors", postHogVectors);
