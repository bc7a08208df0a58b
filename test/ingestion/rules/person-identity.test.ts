import { describe, expect, it } from "vitest";
import { personUuidFor, processesPersonProfile } from "../../../src/ingestion/rules/person-identity.js";
import { ingestEvent } from "../../support/ingest.js";

describe("personUuidFor", () => {
  it("derives a UUIDv5 from the project and the distinct id, the same each time", () => {
    const uuid = personUuidFor(1, "abc");
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(personUuidFor(1, "abc")).toBe(uuid);
    expect(personUuidFor(2, "abc")).not.toBe(uuid);
    expect(personUuidFor(1, "abd")).not.toBe(uuid);
  });

  it("matches PostHog's derivation (uuidv5 of `team:distinct_id` in its person namespace)", () => {
    // Computed independently: uuid.v5("1:abc", "932979b4-65c3-4424-8467-0b66ec27bc22").
    expect(personUuidFor(1, "abc")).toBe("07738276-ab30-525b-9ece-796064758bd4");
  });
});

describe("processesPersonProfile", () => {
  it("is false only for $process_person_profile exactly false", () => {
    expect(processesPersonProfile(ingestEvent("u", { $process_person_profile: false }))).toBe(false);
    expect(processesPersonProfile(ingestEvent("u", { $process_person_profile: "false" }))).toBe(true);
    expect(processesPersonProfile(ingestEvent("u", {}))).toBe(true);
  });
});
