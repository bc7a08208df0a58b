/**
 * OpenFeature's Remote Evaluation Protocol (OFREP, open-feature/protocol `service/openapi.yaml`) on
 * the SDK door, so OpenFeature's providers (`@openfeature/ofrep-provider` on servers,
 * `@openfeature/ofrep-web-provider` in browsers, and their twins in other languages) evaluate our
 * flags with our engine:
 * - `POST /ofrep/v1/evaluate/flags/{key}`: one flag (the server providers' dynamic-context path):
 *   200 `evaluationSuccess`, 404 `FLAG_NOT_FOUND` for a key the project has no flag under, 500
 *   `GENERAL` when the subject's stored data could not be read for a flag that needs it;
 * - `POST /ofrep/v1/evaluate/flags`: every flag (the web providers' static-context path), 200
 *   `{flags: [...]}` with a weak `ETag` taken from the answer (./ofrep.ts `bulkEtag`), 304 with no
 *   body when `If-None-Match` names it (ADR 0005: the provider polls and keeps its cache);
 * both authorised by the project's public token in `Authorization: Bearer phc_…` or `X-API-Key`
 * (401 `{errorDetails}` without one or for an unknown one), with CORS and preflights (the door's;
 * the `ETag` exposed to pages), the body `{context}` read by evaluation.schemas.ts `readOfrepRequest`
 * (400 `TARGETING_KEY_MISSING`, `INVALID_CONTEXT`, `PARSE_ERROR`) and each flag's answer by ./ofrep.ts.
 */
import fresh from "fresh";
import { JSON_MEDIA_TYPE } from "../../core/media-types.js";
import type { SdkModule, SdkReply, SdkRequest, SdkRoute } from "../../sdk/route.js";
import { countFlagRequest, evaluatedCount } from "./delivery-metrics.js";
import { bulkEtag, flagNotFound, ofrepErrorReply, ofrepResult } from "./ofrep.js";

/** The OFREP routes of the SDK door. */
export const ofrepSdkRoutes: SdkModule = (services, limits) => {
  const evaluation = services.flagEvaluation;

  /** Evaluates the request's context for every flag, or for `key` alone. */
  const evaluate = async (request: SdkRequest, key: string | null) => {
    const outcome = await evaluation.evaluateForOpenFeature(
      request.projectId,
      request.payload,
      key,
      limits.maxJsonDepth,
    );
    if (outcome.loadError !== null) {
      request.log.error({ err: outcome.loadError }, "flag evaluation could not read stored data");
    }
    countFlagRequest("ofrep", evaluatedCount(outcome.results));
    return outcome;
  };

  const single = async (request: SdkRequest): Promise<SdkReply> => {
    const key = request.params["key"] ?? "";
    const outcome = await evaluate(request, key);
    const found = outcome.results[0];
    if (!found) return { status: 404, body: flagNotFound(key) };
    const result = ofrepResult(found.flag, found.evaluation);
    return { status: "errorCode" in result ? 500 : 200, body: result };
  };

  const bulk = async (request: SdkRequest): Promise<SdkReply> => {
    const outcome = await evaluate(request, null);
    const body = JSON.stringify({
      flags: outcome.results.map(({ flag, evaluation: result }) => ofrepResult(flag, result)),
    });
    const etag = bulkEtag(body);
    const ifNoneMatch = request.headers["if-none-match"];
    if (typeof ifNoneMatch === "string" && fresh({ "if-none-match": ifNoneMatch }, { etag })) {
      return { status: 304, body: undefined, headers: { ETag: etag } };
    }
    return { body, contentType: JSON_MEDIA_TYPE, headers: { ETag: etag } };
  };

  const route = (path: string, summary: string, key: boolean, handler: SdkRoute["handler"]): SdkRoute => ({
    methods: ["POST"],
    rateScope: "flags",
    path,
    summary,
    bodyLimitBytes: limits.bodyLimitBytes,
    tokenIn: "header",
    allowEmptyBody: true,
    renderError: (error, params) => {
      const { status, body } = ofrepErrorReply(error, key ? (params["key"] ?? "") : null);
      return { status, body };
    },
    handler,
  });

  return [
    route(
      "/ofrep/v1/evaluate/flags/:key",
      "OFREP: evaluate one flag for an evaluation context",
      true,
      single,
    ),
    route(
      "/ofrep/v1/evaluate/flags",
      "OFREP: evaluate every flag for an evaluation context (ETag, 304)",
      false,
      bulk,
    ),
  ];
};
