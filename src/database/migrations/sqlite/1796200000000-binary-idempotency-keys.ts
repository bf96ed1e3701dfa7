import { MigrationInterface } from 'typeorm';

/**
 * docs/api.md 10.1: an Idempotency-Key is compared byte for byte (SQLite). Nothing to change:
 * SQLite's default collation, BINARY, already compares bytes, in `=` and in the unique index.
 * The class keeps both dialects' histories the same list of names.
 */
export class BinaryIdempotencyKeys1796200000000 implements MigrationInterface {
  name = 'BinaryIdempotencyKeys1796200000000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
