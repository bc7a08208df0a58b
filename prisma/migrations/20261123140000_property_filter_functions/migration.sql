-- Functions of the property-filter translation (src/lib/property-filters/to-sql.ts, regex-check.ts). They let
-- a filter run over every row without ever failing the statement on a value it cannot read.

-- A property's text as a timestamp, for PostHog's date operators (is_date_before/after/exact):
-- ISO 8601 text (a date, or a date-time with or without offset; without one it is UTC), else NULL
-- (no match). The cast runs inside an exception block only after a cheap shape check, so a
-- non-date property costs no subtransaction.
CREATE FUNCTION property_timestamp(value text) RETURNS timestamptz
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE SET "TimeZone" = 'UTC' AS $$
BEGIN
  IF value !~ '^\s*\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?\s*$' THEN
    RETURN NULL;
  END IF;
  BEGIN
    RETURN value::timestamptz;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
END
$$;

-- Whether `pattern` compiles as a PostgreSQL regular expression (the `regex`/`not_regex`
-- operators run `~`): checked when filters are written, so that no read fails on a bad pattern.
CREATE FUNCTION property_regex_is_valid(pattern text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  PERFORM '' ~ pattern;
  RETURN true;
EXCEPTION WHEN invalid_regular_expression OR program_limit_exceeded THEN
  RETURN false;
END
$$;
