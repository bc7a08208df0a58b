/**
 * Date-times in REST answers as Django REST framework writes them (issue 26 A2): `DateTimeField.
 * to_representation` (rest_framework/fields.py) takes `value.isoformat()` of the UTC time and writes
 * a `+00:00` offset as `Z`. Python's `isoformat()` leaves the fraction out when the microseconds are
 * zero and writes six digits otherwise: `2024-02-10T00:00:00Z`, `2024-02-10T00:00:00.120000Z`.
 * A JavaScript `Date` holds milliseconds, so the last three digits are always zero (PostgreSQL's
 * microseconds are cut to milliseconds when read). Every date-time field of every REST answer goes
 * through here; GraphQL keeps its `DateTime` scalar.
 */

/** `value` as DRF writes a date-time (see the module header), e.g. `2024-02-10T12:30:00.250000Z`. */
export function drfDateTime(value: Date): string {
  const iso = value.toISOString();
  return value.getUTCMilliseconds() === 0 ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 23)}000Z`;
}

/** `drfDateTime(value)`, or null for a date-time that is not set. */
export function drfDateTimeOrNull(value: Date | null | undefined): string | null {
  return value ? drfDateTime(value) : null;
}
