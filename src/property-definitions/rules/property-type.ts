/**
 * PostHog's rule tying a property definition's `is_numerical` to its `property_type` when the type
 * is set through the API (`ee_property_definition.py` EnterprisePropertyDefinitionSerializer
 * `update`): `Numeric` makes it numerical, any other type (or none) not. Pure.
 */
import type { PropertyType } from "../property-definitions.schemas.js";

/** Whether a property whose type is set to `propertyType` is numerical. */
export function isNumericalType(propertyType: PropertyType | null): boolean {
  return propertyType === "Numeric";
}
