-- Written by src/delivery/delivery-sql.spec.ts (`npm run test:unit -- -u`): what delivery sends the database.

-- fan-out: every webhook that takes the type (an event written with a change): mysql, sqlite
INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT ?, ?, ?, w.id, CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'failed' END, 0, CASE WHEN w.disabled_at IS NULL THEN ? END, NULL, ?
      FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id
     WHERE s.organization_id = ? AND (w.event_types IS NULL OR INSTR(w.event_types, ?) > 0 OR INSTR(w.event_types, ?) > 0);

-- fan-out: the enabled webhooks but one (webhook.disabled): mysql, sqlite
INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT ?, ?, ?, w.id, CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'failed' END, 0, CASE WHEN w.disabled_at IS NULL THEN ? END, NULL, ?
      FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id
     WHERE s.organization_id = ? AND (w.event_types IS NULL OR INSTR(w.event_types, ?) > 0 OR INSTR(w.event_types, ?) > 0) AND w.disabled_at IS NULL AND w.id <> ?;

-- insert: ingest's group commit of one event handed over, as one script: mysql
SELECT id FROM webhook_sources WHERE organization_id IN (?) ORDER BY organization_id LOCK IN SHARE MODE;

INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, payload, body_bytes, created_at, trace_id, trace_span_id, trace_state)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT b.id, b.org, b.type, w.id, CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'failed' END, 0,
           CASE WHEN NOT (w.disabled_at IS NULL) THEN NULL WHEN b.token IS NOT NULL AND w.disabled_at IS NULL AND w.rate_limit IS NULL AND w.ordered = 0 AND h.breaker_open_until IS NULL THEN b.lease_until ELSE b.at END, CASE WHEN b.token IS NOT NULL AND w.disabled_at IS NULL AND w.rate_limit IS NULL AND w.ordered = 0 AND h.breaker_open_until IS NULL THEN b.token END, b.at
      FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id LEFT JOIN webhook_health h ON h.webhook_id = w.id
      JOIN (SELECT ? AS n, ? AS id, ? AS org, ? AS type, ? AS quoted_type, ? AS quoted_wildcard, ? AS at, ? AS lease_until, ? AS token) b ON b.org = s.organization_id
     WHERE (w.event_types IS NULL OR INSTR(w.event_types, b.quoted_type) > 0 OR INSTR(w.event_types, b.quoted_wildcard) > 0)
     ORDER BY b.n, w.id;

SELECT e.id AS eventId, d.id AS id, d.webhook_id AS webhookId, d.claim_token AS claimToken
     FROM events e LEFT JOIN deliveries d ON d.event_id = e.id WHERE e.id IN (?);

-- insert: ingest's group commit of one event handed over, as one script: sqlite
SELECT id FROM webhook_sources WHERE organization_id IN (?) ORDER BY organization_id;

INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, payload, body_bytes, created_at, trace_id, trace_span_id, trace_state)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT b.id, b.org, b.type, w.id, CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'failed' END, 0,
           CASE WHEN NOT (w.disabled_at IS NULL) THEN NULL WHEN b.token IS NOT NULL AND w.disabled_at IS NULL AND w.rate_limit IS NULL AND w.ordered = 0 AND h.breaker_open_until IS NULL THEN b.lease_until ELSE b.at END, CASE WHEN b.token IS NOT NULL AND w.disabled_at IS NULL AND w.rate_limit IS NULL AND w.ordered = 0 AND h.breaker_open_until IS NULL THEN b.token END, b.at
      FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id LEFT JOIN webhook_health h ON h.webhook_id = w.id
      JOIN (SELECT ? AS n, ? AS id, ? AS org, ? AS type, ? AS quoted_type, ? AS quoted_wildcard, ? AS at, ? AS lease_until, ? AS token) b ON b.org = s.organization_id
     WHERE (w.event_types IS NULL OR INSTR(w.event_types, b.quoted_type) > 0 OR INSTR(w.event_types, b.quoted_wildcard) > 0)
     ORDER BY b.n, w.id;

SELECT e.id AS eventId, d.id AS id, d.webhook_id AS webhookId, d.claim_token AS claimToken
     FROM events e LEFT JOIN deliveries d ON d.event_id = e.id WHERE e.id IN (?);

-- insert: a batch of two events handed over, two webhooks left out, as one script: mysql
SELECT id FROM webhook_sources WHERE organization_id IN (?) ORDER BY organization_id LOCK IN SHARE MODE;

INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, payload, body_bytes, created_at, trace_id, trace_span_id, trace_state)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT b.id, b.org, b.type, w.id, CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'failed' END, 0,
           CASE WHEN NOT (w.disabled_at IS NULL) THEN NULL WHEN b.token IS NOT NULL AND w.disabled_at IS NULL AND w.rate_limit IS NULL AND w.ordered = 0 AND h.breaker_open_until IS NULL AND w.id NOT IN (?, ?) THEN b.lease_until ELSE b.at END, CASE WHEN b.token IS NOT NULL AND w.disabled_at IS NULL AND w.rate_limit IS NULL AND w.ordered = 0 AND h.breaker_open_until IS NULL AND w.id NOT IN (?, ?) THEN b.token END, b.at
      FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id LEFT JOIN webhook_health h ON h.webhook_id = w.id
      JOIN (SELECT ? AS n, ? AS id, ? AS org, ? AS type, ? AS quoted_type, ? AS quoted_wildcard, ? AS at, ? AS lease_until, ? AS token UNION ALL SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?) b ON b.org = s.organization_id
     WHERE (w.event_types IS NULL OR INSTR(w.event_types, b.quoted_type) > 0 OR INSTR(w.event_types, b.quoted_wildcard) > 0)
     ORDER BY b.n, w.id;

SELECT e.id AS eventId, d.id AS id, d.webhook_id AS webhookId, d.claim_token AS claimToken
     FROM events e LEFT JOIN deliveries d ON d.event_id = e.id WHERE e.id IN (?, ?);

-- insert: a batch of two events handed over, two webhooks left out, as one script: sqlite
SELECT id FROM webhook_sources WHERE organization_id IN (?) ORDER BY organization_id;

INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, payload, body_bytes, created_at, trace_id, trace_span_id, trace_state)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT b.id, b.org, b.type, w.id, CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'failed' END, 0,
           CASE WHEN NOT (w.disabled_at IS NULL) THEN NULL WHEN b.token IS NOT NULL AND w.disabled_at IS NULL AND w.rate_limit IS NULL AND w.ordered = 0 AND h.breaker_open_until IS NULL AND w.id NOT IN (?, ?) THEN b.lease_until ELSE b.at END, CASE WHEN b.token IS NOT NULL AND w.disabled_at IS NULL AND w.rate_limit IS NULL AND w.ordered = 0 AND h.breaker_open_until IS NULL AND w.id NOT IN (?, ?) THEN b.token END, b.at
      FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id LEFT JOIN webhook_health h ON h.webhook_id = w.id
      JOIN (SELECT ? AS n, ? AS id, ? AS org, ? AS type, ? AS quoted_type, ? AS quoted_wildcard, ? AS at, ? AS lease_until, ? AS token UNION ALL SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?) b ON b.org = s.organization_id
     WHERE (w.event_types IS NULL OR INSTR(w.event_types, b.quoted_type) > 0 OR INSTR(w.event_types, b.quoted_wildcard) > 0)
     ORDER BY b.n, w.id;

SELECT e.id AS eventId, d.id AS id, d.webhook_id AS webhookId, d.claim_token AS claimToken
     FROM events e LEFT JOIN deliveries d ON d.event_id = e.id WHERE e.id IN (?, ?);
