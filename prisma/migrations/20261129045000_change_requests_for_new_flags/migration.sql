-- A held flag create (issue 27) has no resource id yet: the open-request key covers requests on an
-- existing resource only, so that held creates of different flags do not hold each other up.
DROP INDEX "change_requests_open_key";

CREATE UNIQUE INDEX "change_requests_open_key" ON "change_requests"
  ("project_id", "action_key", "resource_type", "resource_id")
  WHERE "state" IN ('pending', 'approved') AND "resource_id" IS NOT NULL;
