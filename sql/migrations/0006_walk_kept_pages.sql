-- A walk one job reads whole (accords, a brand's catalogue) stopped part-way by a stop or a
-- pause of the run: the entries of each page it bought, as JSON text (an array with one array
-- of entries per page, null for a page not bought), so the next read of the cycle buys only
-- the pages it lacks. NULL on every other walk, and once the walk is read again.
ALTER TABLE sync_walks ADD COLUMN kept_pages VARCHAR;
