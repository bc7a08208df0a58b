-- The analytics tables as PostHog keeps them in ClickHouse, one statement per `;`-ended paragraph
-- (applied in file order by src/analytics/clickhouse/migrations.ts, recorded in
-- `signalbox_migrations`). `team_id` holds the Signalbox project id: PostHog's team is our project.
-- PostHog's Kafka columns (`_offset`, `_partition`) are left out: rows arrive by HTTP inserts.

-- posthog/models/event/sql.py `EVENTS_TABLE_BASE_SQL` (sharded_events): ReplacingMergeTree on
-- `_timestamp`, ordered by project, day, event, distinct id and uuid, so a uuid captured twice is
-- one row once parts merge; reads take `FINAL`, so a resent event counts once before merges too.
-- `person_id` is the person the event resolved to at capture (PostHog's person-on-events); a read
-- takes the distinct id's current person from person_distinct_id2 where it has one, as PostHog's
-- overrides do (posthog/hogql/database/schema/events.py, person_distinct_id_overrides).
CREATE TABLE IF NOT EXISTS events
(
    uuid UUID,
    event String,
    properties String CODEC(ZSTD(3)),
    timestamp DateTime64(6, 'UTC'),
    team_id Int64,
    distinct_id String,
    elements_chain String,
    created_at DateTime64(6, 'UTC'),
    person_id Nullable(UUID),
    `$session_id` String MATERIALIZED JSONExtractString(properties, '$session_id'),
    _timestamp DateTime64(6, 'UTC')
)
ENGINE = ReplacingMergeTree(_timestamp)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid));

-- posthog/models/person/sql.py `PERSONS_TABLE_BASE_SQL`: a person's rows by `version`, the
-- highest winning (ReplacingMergeTree("version")); a deletion is a row with `is_deleted = 1`.
CREATE TABLE IF NOT EXISTS person
(
    id UUID,
    created_at DateTime64(3, 'UTC'),
    team_id Int64,
    properties String CODEC(ZSTD(3)),
    is_identified Int8,
    is_deleted Int8 DEFAULT 0,
    version UInt64,
    _timestamp DateTime64(6, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, id);

-- posthog/models/person/sql.py `PERSON_DISTINCT_ID2_TABLE_BASE_SQL`: which person a distinct id
-- belongs to, by `version` (raised each time it moves, as PostgreSQL's `person_distinct_ids.version`).
CREATE TABLE IF NOT EXISTS person_distinct_id2
(
    team_id Int64,
    distinct_id String,
    person_id UUID,
    is_deleted Int8 DEFAULT 0,
    version Int64,
    _timestamp DateTime64(6, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, distinct_id);

-- posthog/models/group/sql.py `GROUPS_TABLE_BASE_SQL`: a group's rows. PostHog's latest `_timestamp`
-- wins; here PostgreSQL's `version` does (ReplacingMergeTree(version)), so two requests writing one
-- group keep the row PostgreSQL kept whichever insert arrives last.
CREATE TABLE IF NOT EXISTS groups
(
    group_type_index UInt8,
    group_key String,
    created_at DateTime64(6, 'UTC'),
    team_id Int64,
    group_properties String,
    version Int64,
    _timestamp DateTime64(6, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (team_id, group_type_index, group_key);

-- posthog/models/cohort/sql.py `PERSON_STATIC_COHORT_TABLE_SQL`: static cohort members.
CREATE TABLE IF NOT EXISTS person_static_cohort
(
    id UUID,
    person_id UUID,
    cohort_id Int64,
    team_id Int64,
    _timestamp DateTime64(6, 'UTC')
)
ENGINE = ReplacingMergeTree(_timestamp)
ORDER BY (team_id, cohort_id, person_id, id);
