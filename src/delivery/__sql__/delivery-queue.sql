-- Written by src/delivery/delivery-sql.spec.ts (`npm run test:unit -- -u`): what delivery sends the database.

-- scan (SCAN): every enabled webhook with a due delivery, each lane one index seek: mysql, sqlite
SELECT * FROM (
  SELECT w.id AS webhookId, s.organization_id AS organizationId, w.rate_limit AS rateLimit,
         w.ordered AS ordered,
         h.breaker_open_until AS breakerOpenUntil, h.rate_next_at AS rateNextAt,
         (SELECT d.next_attempt_at FROM deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.lane = 0
     ORDER BY d.next_attempt_at LIMIT 1) AS freshDueAt, (SELECT d.next_attempt_at FROM deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.lane = 1
     ORDER BY d.next_attempt_at LIMIT 1) AS retryDueAt,
         CASE WHEN w.disabled_at IS NULL THEN 0 ELSE 1 END AS disabled
    FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id LEFT JOIN webhook_health h ON h.webhook_id = w.id) due
 WHERE due.freshDueAt <= ? OR due.retryDueAt <= ?;

-- claim: webhook 7 in both lanes; webhook 9 rate limited, its first attempts, its breaker probed: mysql
INSERT INTO webhook_health (webhook_id) VALUES (?) ON DUPLICATE KEY UPDATE webhook_id = webhook_id;

SELECT rate_next_at AS rateNextAt, breaker_open_until AS breakerOpenUntil FROM webhook_health WHERE webhook_id = ? FOR UPDATE;

(SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.lane = ? AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED) UNION ALL (SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.lane = ? AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED) UNION ALL (SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.lane = ? AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED);

UPDATE deliveries SET next_attempt_at = ?, claim_token = ? WHERE id IN (?, ?, ?);

UPDATE webhook_health SET rate_next_at = ? WHERE webhook_id = ?;

UPDATE webhook_health SET breaker_open_until = ? WHERE webhook_id = ?;

-- claim: webhook 7 in both lanes; webhook 9 rate limited, its first attempts, its breaker probed: sqlite
INSERT INTO webhook_health (webhook_id) VALUES (?) ON CONFLICT (webhook_id) DO NOTHING;

SELECT rate_next_at AS rateNextAt, breaker_open_until AS breakerOpenUntil FROM webhook_health WHERE webhook_id = ?;

SELECT * FROM (SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.lane = ? AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ?) UNION ALL SELECT * FROM (SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.lane = ? AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ?) UNION ALL SELECT * FROM (SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.lane = ? AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ?);

UPDATE deliveries SET next_attempt_at = ?, claim_token = ? WHERE id IN (?, ?, ?);

UPDATE webhook_health SET rate_next_at = ? WHERE webhook_id = ?;

UPDATE webhook_health SET breaker_open_until = ? WHERE webhook_id = ?;

-- claim: webhook 4 ordered, its head and its test pings: mysql
INSERT INTO webhook_health (webhook_id) VALUES (?) ON DUPLICATE KEY UPDATE webhook_id = webhook_id;

SELECT rate_next_at AS rateNextAt, breaker_open_until AS breakerOpenUntil FROM webhook_health WHERE webhook_id = ? FOR UPDATE;

(SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.event_type = 'webhook.test' AND d.state = 'pending' AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED);

SELECT d.id AS id FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.event_type <> 'webhook.test'
    ORDER BY d.created_at, d.id LIMIT 1;

SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes FROM deliveries d WHERE d.id = ? AND d.state = 'pending' AND d.next_attempt_at <= ? FOR UPDATE;

UPDATE deliveries SET next_attempt_at = ?, claim_token = ? WHERE id IN (?);

-- claim: webhook 4 ordered, its head and its test pings: sqlite
INSERT INTO webhook_health (webhook_id) VALUES (?) ON CONFLICT (webhook_id) DO NOTHING;

SELECT rate_next_at AS rateNextAt, breaker_open_until AS breakerOpenUntil FROM webhook_health WHERE webhook_id = ?;

SELECT * FROM (SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.event_type = 'webhook.test' AND d.state = 'pending' AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ?);

SELECT d.id AS id FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.event_type <> 'webhook.test'
    ORDER BY d.created_at, d.id LIMIT 1;

SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes FROM deliveries d WHERE d.id = ? AND d.state = 'pending' AND d.next_attempt_at <= ?;

UPDATE deliveries SET next_attempt_at = ?, claim_token = ? WHERE id IN (?);

-- record: a batch of two attempts, one succeeded, one to retry: mysql
SELECT d.id AS id, d.webhook_id AS webhookId, d.attempts AS attempts,
                  (SELECT COUNT(*) FROM webhooks w WHERE w.id = d.webhook_id AND w.disabled_at IS NOT NULL) AS disabled,
                  (SELECT COUNT(*) FROM webhook_health h WHERE h.webhook_id = d.webhook_id
     AND (h.failing_since IS NOT NULL OR h.failed_attempts > 0 OR h.breaker_failures > 0 OR h.breaker_open_until IS NOT NULL)) AS unhealthy
             FROM deliveries d WHERE d.claim_token = ? AND d.state = 'pending' AND d.id IN (?, ?) FOR UPDATE;

UPDATE deliveries SET state = CASE id WHEN ? THEN ? WHEN ? THEN ? END, attempts = attempts + 1, next_attempt_at = CASE id WHEN ? THEN ? WHEN ? THEN ? END, claim_token = NULL,
                lane = 1, last_attempt_at = CASE id WHEN ? THEN ? WHEN ? THEN ? END, last_duration_ms = CASE id WHEN ? THEN ? WHEN ? THEN ? END,
                last_status = CASE id WHEN ? THEN ? WHEN ? THEN ? END, last_error = CASE id WHEN ? THEN ? WHEN ? THEN ? END
          WHERE id IN (?, ?);

INSERT INTO delivery_attempts (delivery_id, at, duration_ms, status, error) VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?);

-- record: a batch of two attempts, one succeeded, one to retry: sqlite
SELECT d.id AS id, d.webhook_id AS webhookId, d.attempts AS attempts,
                  (SELECT COUNT(*) FROM webhooks w WHERE w.id = d.webhook_id AND w.disabled_at IS NOT NULL) AS disabled,
                  (SELECT COUNT(*) FROM webhook_health h WHERE h.webhook_id = d.webhook_id
     AND (h.failing_since IS NOT NULL OR h.failed_attempts > 0 OR h.breaker_failures > 0 OR h.breaker_open_until IS NOT NULL)) AS unhealthy
             FROM deliveries d WHERE d.claim_token = ? AND d.state = 'pending' AND d.id IN (?, ?);

UPDATE deliveries SET state = CASE id WHEN ? THEN ? WHEN ? THEN ? END, attempts = attempts + 1, next_attempt_at = CASE id WHEN ? THEN ? WHEN ? THEN ? END, claim_token = NULL,
                lane = 1, last_attempt_at = CASE id WHEN ? THEN ? WHEN ? THEN ? END, last_duration_ms = CASE id WHEN ? THEN ? WHEN ? THEN ? END,
                last_status = CASE id WHEN ? THEN ? WHEN ? THEN ? END, last_error = CASE id WHEN ? THEN ? WHEN ? THEN ? END
          WHERE id IN (?, ?);

INSERT INTO delivery_attempts (delivery_id, at, duration_ms, status, error) VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?);

-- release: three claims given back (those of a webhook disabled meanwhile failed): mysql, sqlite
UPDATE deliveries SET state = CASE WHEN (SELECT COUNT(*) FROM webhooks w WHERE w.id = deliveries.webhook_id AND w.disabled_at IS NOT NULL) > 0 THEN 'failed' ELSE 'pending' END,
                next_attempt_at = CASE WHEN (SELECT COUNT(*) FROM webhooks w WHERE w.id = deliveries.webhook_id AND w.disabled_at IS NOT NULL) > 0 THEN NULL ELSE ? END, claim_token = NULL
          WHERE claim_token = ? AND state = 'pending' AND id IN (?, ?, ?);

-- fail left pending: what the scan found left by dead claimers on two disabled webhooks: mysql, sqlite
UPDATE deliveries SET state = 'failed', next_attempt_at = NULL, claim_token = NULL
          WHERE webhook_id IN (?, ?) AND state = 'pending' AND (claim_token IS NULL OR next_attempt_at <= ?)
            AND (SELECT COUNT(*) FROM webhooks w WHERE w.id = deliveries.webhook_id AND w.disabled_at IS NOT NULL) > 0;

-- stats (STATS): the depth, the oldest due delivery, the open breakers: mysql, sqlite
SELECT (SELECT COUNT(*) FROM deliveries WHERE state = 'pending') AS pending,
       (SELECT MIN(CASE WHEN scan.freshDueAt <= ? AND (scan.retryDueAt IS NULL OR scan.freshDueAt < scan.retryDueAt) THEN scan.freshDueAt
                        ELSE scan.retryDueAt END)
          FROM (SELECT * FROM (
  SELECT w.id AS webhookId, s.organization_id AS organizationId, w.rate_limit AS rateLimit,
         w.ordered AS ordered,
         h.breaker_open_until AS breakerOpenUntil, h.rate_next_at AS rateNextAt,
         (SELECT d.next_attempt_at FROM deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.lane = 0
     ORDER BY d.next_attempt_at LIMIT 1) AS freshDueAt, (SELECT d.next_attempt_at FROM deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.lane = 1
     ORDER BY d.next_attempt_at LIMIT 1) AS retryDueAt,
         CASE WHEN w.disabled_at IS NULL THEN 0 ELSE 1 END AS disabled
    FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id LEFT JOIN webhook_health h ON h.webhook_id = w.id) due
 WHERE due.freshDueAt <= ? OR due.retryDueAt <= ?) scan WHERE scan.disabled = 0 AND (scan.breakerOpenUntil IS NULL OR scan.breakerOpenUntil <= ?)) AS oldestDueAt,
       (SELECT COUNT(*) FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id JOIN webhook_health h ON h.webhook_id = w.id
         WHERE w.disabled_at IS NULL AND h.breaker_open_until IS NOT NULL) AS breakersOpen;
