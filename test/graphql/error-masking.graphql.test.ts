/**
 * Unexpected failures stay masked through the GraphQL door: the caller sees "Unexpected error."
 * and nothing of the cause (no SQL, table names or stack), even with NODE_ENV=development, which
 * switches yoga's own masking to showing causes; the server logs the cause. The failure is real:
 * this file's database loses the flags table under the running server.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachBackend } from "../support/server.js";

const nodeEnv = process.env["NODE_ENV"];
beforeAll(() => {
  process.env["NODE_ENV"] = "development";
});
afterAll(() => {
  process.env["NODE_ENV"] = nodeEnv;
});

describeEachBackend("GraphQL error masking", (server) => {
  it("masks a database failure and logs its cause", async () => {
    const s = server();
    await s.db.$executeRawUnsafe('ALTER TABLE "feature_flags" RENAME TO "feature_flags_gone"');
    const query = `{ project(id: "${s.projectId}") {\n  featureFlags(first: 5) { edges { node { key } } } } }`;
    const answer = await s.request("POST", "/graphql", { body: { query } });
    expect(answer.body.errors).toHaveLength(1);
    const [error] = answer.body.errors;
    expect(Object.keys(error).sort()).toEqual(["extensions", "locations", "message", "path"]);
    expect(error).toMatchObject({
      message: "Unexpected error.",
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    });
    expect(error.path).toEqual(["project", "featureFlags"]);
    // Where the failing field is in the document, as graphql-js reports it (compiled execution too).
    expect(error.locations).toEqual([{ line: 2, column: 3 }]);
    expect(Object.keys(error.extensions)).toEqual(["code"]);
    expect(answer.text).not.toMatch(/feature_flags|relation|SELECT|prisma|stack|\.ts:\d+|\.js:\d+/i);
    expect(JSON.stringify(s.errorLogs)).toMatch(/feature_flags/);
  });
});
