/**
 * The settings' table (src/config-settings.ts): docs/configuration.md is exactly what the schema and
 * the meanings give (`npm run docs:config` writes it); every setting of `envSchema` has a default
 * as `loadConfig` applies it and a meaning; `settingRows` shows the environment's values with
 * secrets masked.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema, loadConfig } from "../../src/config.js";
import { configurationDoc, settingRows } from "../../src/config-settings.js";

describe("settings", () => {
  it("keeps docs/configuration.md as the schema and the meanings write it", async () => {
    const file = await fs.readFile(
      path.join(import.meta.dirname, "..", "..", "docs", "configuration.md"),
      "utf8",
    );
    expect(file, "docs/configuration.md is stale: run npm run docs:config").toBe(configurationDoc());
  });

  it("lists every setting once, in the schema's order, with a meaning", () => {
    const rows = settingRows({});
    expect(rows.map((row) => row.name)).toEqual(Object.keys(envSchema.shape));
    for (const row of rows) expect(row.description.length).toBeGreaterThan(10);
  });

  it("shows defaults that loadConfig applies", () => {
    const byName = new Map(settingRows({}).map((row) => [row.name, row]));
    const config = loadConfig({});
    expect(byName.get("PORT")?.default).toBe(String(config.port));
    expect(byName.get("HOST")?.default).toBe(config.host);
    expect(byName.get("MAX_PAGE_SIZE")?.default).toBe(String(config.limits.maxPageSize));
    expect(byName.get("RATE_LIMIT_BURST")?.default).toBe("480/minute");
    expect(byName.get("TRUST_PROXY")?.default).toBe(String(config.trustProxy));
    expect(byName.get("DATABASE_URL")?.default).toBeNull();
    // Every default, written back into the environment, loads as the default itself does.
    const written = Object.fromEntries(
      settingRows({})
        .filter((row) => row.default !== null)
        .map((row) => [row.name, row.default!]),
    );
    expect(loadConfig(written)).toEqual(config);
  });

  it("shows the environment's values with secrets masked", () => {
    const rows = settingRows({
      PORT: "9000",
      DATABASE_URL: "postgresql://signalbox:s3cret@db.internal:5432/signalbox",
      METRICS_TOKEN: "a-very-secret-metrics-token",
      LOG_LEVEL: "",
    });
    const byName = new Map(rows.map((row) => [row.name, row]));
    expect(byName.get("PORT")).toMatchObject({ value: "9000", source: "environment", default: "8000" });
    expect(byName.get("DATABASE_URL")?.value).toBe(
      "postgresql://signalbox:[Redacted]@db.internal:5432/signalbox",
    );
    expect(byName.get("METRICS_TOKEN")?.value).toBe("[Redacted]");
    // An empty variable counts as unset, as loadConfig reads it.
    expect(byName.get("LOG_LEVEL")).toMatchObject({ value: "info", source: "default" });
    expect(JSON.stringify(rows)).not.toContain("s3cret");
  });
});
