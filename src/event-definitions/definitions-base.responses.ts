/**
 * The response fields event and property definitions answer alike: PostHog's enterprise fields for
 * the last API change and the verification (`EnterpriseEventDefinitionSerializer`,
 * `ee/api/ee_event_definition.py`; `EnterprisePropertyDefinitionSerializer`,
 * `ee_property_definition.py`), as zod shapes each kind spreads into its schema at its own place and
 * the serialisers that fill them. Used by event-definitions.responses.ts and
 * property-definitions/property-definitions.responses.ts.
 */
import { z } from "zod";
import type { UserBasic } from "../core/records.js";
import { drfDateTimeOrNull } from "../rest/date-time.js";
import { serializeUserBasic, userBasicSchema } from "../rest/serializers.js";

/** `updated_at` and `updated_by`: the last change through the API (capture changes neither). */
export const updateStampFields = {
  updated_at: z.iso.datetime().nullable().describe("Last change through the API."),
  updated_by: userBasicSchema.nullable(),
};

/** `verified`, `verified_at`, `verified_by` and `hidden`, in PostHog's order. */
export const verificationFields = {
  verified: z.boolean(),
  verified_at: z.iso.datetime().nullable(),
  verified_by: userBasicSchema.nullable(),
  hidden: z.boolean(),
};

/** `updateStampFields` of a definition record. */
export function serializeUpdateStamp(definition: {
  updatedAt: Date | null;
  updatedBy: UserBasic | null;
}): z.output<z.ZodObject<typeof updateStampFields>> {
  return {
    updated_at: drfDateTimeOrNull(definition.updatedAt),
    updated_by: definition.updatedBy ? serializeUserBasic(definition.updatedBy) : null,
  };
}

/** `verificationFields` of a definition record. */
export function serializeVerification(definition: {
  verified: boolean;
  verifiedAt: Date | null;
  verifiedBy: UserBasic | null;
  hidden: boolean;
}): z.output<z.ZodObject<typeof verificationFields>> {
  return {
    verified: definition.verified,
    verified_at: drfDateTimeOrNull(definition.verifiedAt),
    verified_by: definition.verifiedBy ? serializeUserBasic(definition.verifiedBy) : null,
    hidden: definition.hidden,
  };
}
