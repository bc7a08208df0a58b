/**
 * Where a request's personal API key is found, first found wins (posthog/auth.py
 * `PersonalAPIKeyAuthentication.find_key_with_source`): the Bearer header, the body's
 * `personal_api_key` (JSON or form), the query string's.
 */
import { describe, expect, it } from "vitest";
import { findCredential } from "../../../src/core/auth/authenticate.js";
import { FormBody } from "../../../src/core/form-body.js";

const query = (text: string) => new URLSearchParams(text);

describe("findCredential", () => {
  it("takes a Bearer header's token, trimmed", () => {
    expect(findCredential({ authorization: "Bearer phx_abc " })).toEqual({
      key: "phx_abc",
      source: "Authorization header",
    });
    expect(findCredential({ authorization: "Bearer \t phx_abc" })).toEqual({
      key: "phx_abc",
      source: "Authorization header",
    });
  });

  it("reads the header before the body and the query string", () => {
    const request = {
      authorization: "Bearer phx_header",
      body: { personal_api_key: "phx_body" },
      query: query("personal_api_key=phx_query"),
    };
    expect(findCredential(request)).toEqual({ key: "phx_header", source: "Authorization header" });
    expect(findCredential({ ...request, authorization: undefined })).toEqual({
      key: "phx_body",
      source: "body",
    });
  });

  it("skips an OAuth token (pha_) and a header that is not Bearer", () => {
    const body = { personal_api_key: "phx_body" };
    expect(findCredential({ authorization: "Bearer pha_oauth", body })).toEqual({
      key: "phx_body",
      source: "body",
    });
    expect(findCredential({ authorization: "Basic phx_abc", body })).toEqual({
      key: "phx_body",
      source: "body",
    });
    expect(findCredential({ authorization: "Bearer ", body })).toEqual({ key: "phx_body", source: "body" });
    expect(findCredential({ authorization: "xBearer phx_abc", body })).toEqual({
      key: "phx_body",
      source: "body",
    });
    expect(findCredential({ authorization: "Bearer phx_abc and more" })).toEqual({
      key: "phx_abc and more",
      source: "Authorization header",
    });
  });

  it("takes a form body's field", () => {
    const body = new FormBody([["personal_api_key", "phx_form"]]);
    expect(findCredential({ body })).toEqual({ key: "phx_form", source: "body" });
  });

  it("ignores a body that is a list, not an object, or whose key is empty or not a string", () => {
    const fromQuery = { key: "phx_query", source: "query string" };
    const q = query("personal_api_key=phx_query");
    expect(findCredential({ body: [{ personal_api_key: "phx_body" }], query: q })).toEqual(fromQuery);
    expect(findCredential({ body: "personal_api_key", query: q })).toEqual(fromQuery);
    expect(findCredential({ body: null, query: q })).toEqual(fromQuery);
    expect(findCredential({ body: { personal_api_key: "" }, query: q })).toEqual(fromQuery);
    expect(findCredential({ body: { personal_api_key: 12 }, query: q })).toEqual(fromQuery);
    expect(findCredential({ body: new FormBody([["other", "phx_form"]]), query: q })).toEqual(fromQuery);
  });

  it("is null without a credential, or with an empty query parameter", () => {
    expect(findCredential({})).toBeNull();
    expect(findCredential({ query: query("personal_api_key=") })).toBeNull();
    expect(findCredential({ query: query("other=phx_query") })).toBeNull();
  });
});
