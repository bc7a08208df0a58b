-- Change feed: `access` names its transaction, so a process hears each once.
-- A process on PostgreSQL LISTENs on every pooled connection and on a dedicated one, and so receives
-- each notification once per connection, at different moments (src/db/change-feed.ts). Revision and
-- object changes were already unique per transaction (they name the revision committed) and their
-- copies dropped; a bare `{"kind":"access"}` could not be told from the next transaction's, so each
-- copy was delivered, and the late copies emptied the key and revision caches again up to the
-- network's latency after the write, long after its COMMIT had returned.
-- Payload (JSON text), replacing migration change_feed's:
--   {"kind":"access","transaction":"<xid8>"}
-- One transaction's `access` notifications are still folded into one (identical payloads).

CREATE OR REPLACE FUNCTION change_feed_access() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('signalbox_changes',
    json_build_object('kind', 'access', 'transaction', pg_current_xact_id()::text)::text);
  RETURN NULL;
END
$$;
