-- Safe casts of the HogQL printer (src/lib/hogql/functions.ts): ClickHouse's `toFloat`, `toInt`,
-- `toDateTime` and `JSONExtract*` answer NULL on input they cannot read (accurateCastOrNull,
-- parseDateTimeBestEffortOrNull) where PostgreSQL's casts raise and fail the whole statement.
-- Each checks the shape first with a regular expression, so that ordinary non-matching input costs
-- no subtransaction; only text that looks right but still fails (overflow, 30 February) reaches the
-- exception block.

-- Text as float8 (`1.5`, ` -2e3 `, `inf`, `nan`), else NULL.
CREATE FUNCTION hogql_to_float(value text) RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF value !~* '^\s*[+-]?((\d+\.?\d*|\.\d+)(e[+-]?\d+)?|inf|infinity|nan)\s*$' THEN
    RETURN NULL;
  END IF;
  BEGIN
    RETURN value::float8;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
END
$$;

-- Text as bigint (an optional sign and digits), else NULL (overflow included).
CREATE FUNCTION hogql_to_int(value text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF value !~ '^\s*[+-]?\d+\s*$' THEN
    RETURN NULL;
  END IF;
  BEGIN
    RETURN value::bigint;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
END
$$;

-- Text as a timestamp: ISO-like date or date-time, with or without offset (without one it is read
-- in the session's TimeZone, which the query runner sets to the project's), else NULL.
CREATE FUNCTION hogql_to_timestamptz(value text) RETURNS timestamptz
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF value !~ '^\s*\d{4}-\d{1,2}-\d{1,2}([T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?\s*$' THEN
    RETURN NULL;
  END IF;
  BEGIN
    RETURN value::timestamptz;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
END
$$;

-- Text as jsonb, else NULL (JSONExtract* over a string column).
CREATE FUNCTION hogql_to_jsonb(value text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF value !~ '^\s*[\[{"0-9tfn-]' THEN
    RETURN NULL;
  END IF;
  BEGIN
    RETURN value::jsonb;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
END
$$;
