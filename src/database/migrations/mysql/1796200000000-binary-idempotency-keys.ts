import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 10.1: an Idempotency-Key is compared byte for byte (MySQL/MariaDB). The column took
 * the database's default collation, which folds case (MariaDB's utf8mb4_general_ci, MySQL's
 * utf8mb4_0900_ai_ci): `order-a` then replayed `Order-A`'s event, dropping its own, and the
 * unique index decided races the same way. utf8mb4_bin compares bytes on both servers (keys are
 * visible ASCII, so its trailing-space padding never applies). Rebuilding the index cannot fail:
 * keys unique under a case-folding collation are unique under a binary one.
 */
export class BinaryIdempotencyKeys1796200000000 implements MigrationInterface {
  name = 'BinaryIdempotencyKeys1796200000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE events MODIFY idempotency_key varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL');
  }

  /** Fails on a unique-key violation once keys differing only in case have both been used. */
  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE events MODIFY idempotency_key varchar(255) NULL');
  }
}
