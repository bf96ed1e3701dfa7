-- Written by src/delivery/delivery-sql.spec.ts (`npm run test:unit -- -u`): what delivery sends the database.

-- page: no filter: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: no filter: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_created WHERE webhook_id = ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_created WHERE webhook_id = ? AND state = ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND event_type = ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_type_created WHERE webhook_id = ? AND event_type = ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND event_type = ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_type_created WHERE webhook_id = ? AND state = ? AND event_type = ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: since: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: since: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_created WHERE webhook_id = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, since: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, since: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_created WHERE webhook_id = ? AND state = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, since: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND event_type = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, since: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_type_created WHERE webhook_id = ? AND event_type = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, since: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, since: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_type_created WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: until: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: until: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_created WHERE webhook_id = ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, until: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, until: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_created WHERE webhook_id = ? AND state = ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, until: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND event_type = ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, until: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_type_created WHERE webhook_id = ? AND event_type = ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, until: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, until: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_type_created WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: since, until: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND created_at >= ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: since, until: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_created WHERE webhook_id = ? AND created_at >= ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, since, until: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND created_at >= ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, since, until: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_created WHERE webhook_id = ? AND state = ? AND created_at >= ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, since, until: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND event_type = ? AND created_at >= ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, since, until: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_type_created WHERE webhook_id = ? AND event_type = ? AND created_at >= ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, since, until: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at >= ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, since, until: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_type_created WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at >= ? AND created_at < ?
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_created WHERE webhook_id = ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_created WHERE webhook_id = ? AND state = ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND event_type = ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_type_created WHERE webhook_id = ? AND event_type = ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_type_created WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: since, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND created_at >= ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: since, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_created WHERE webhook_id = ? AND created_at >= ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, since, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND created_at >= ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, since, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_created WHERE webhook_id = ? AND state = ? AND created_at >= ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, since, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND event_type = ? AND created_at >= ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, since, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_type_created WHERE webhook_id = ? AND event_type = ? AND created_at >= ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, since, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at >= ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, since, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_type_created WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at >= ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: until, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: until, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_created WHERE webhook_id = ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, until, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, until, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_created WHERE webhook_id = ? AND state = ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, until, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND event_type = ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, until, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_type_created WHERE webhook_id = ? AND event_type = ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, until, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, until, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_type_created WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: since, until, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND created_at >= ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: since, until, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_created WHERE webhook_id = ? AND created_at >= ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, since, until, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND created_at >= ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, since, until, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_created WHERE webhook_id = ? AND state = ? AND created_at >= ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, since, until, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND event_type = ? AND created_at >= ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: type, since, until, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_type_created WHERE webhook_id = ? AND event_type = ? AND created_at >= ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, since, until, after: mysql
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at >= ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;

-- page: state, type, since, until, after: sqlite
SELECT d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId
    FROM (SELECT * FROM deliveries INDEXED BY ix_deliveries_webhook_state_type_created WHERE webhook_id = ? AND state = ? AND event_type = ? AND created_at >= ? AND created_at < ? AND created_at <= ? AND (created_at < ? OR id < ?)
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC;
