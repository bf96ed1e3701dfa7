import type { Transaction } from '../database/unit-of-work';
import type { Role } from './entities/member.entity';
import type { OperatorAuditView, OperatorChange } from './operator-audit.repository';
import type { PlatformKeyView } from './platform-key.model';

/*
 * The ports other features reach identity through (docs/architecture.md), each an abstract class
 * as the DI token, shaped by its callers and bound to IdentityService by IdentityModule:
 * IdentityLookups for the features that name organizations and users (event ingest, cards),
 * OperatorChanges for the audit trail of operator commands, IdentityOperations for the CLI.
 * Authentication has IdentityAccess.
 */

export type { OperatorAuditView, OperatorChange, PlatformKeyView, Role };

export const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 3600;
export const DEFAULT_WALLET_TOKEN_TTL_SECONDS = 3600;

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export interface PlatformKeyOptions {
  /** Restricts the key to these organizations, each of which must exist; absent: every organization. */
  readonly organizations?: readonly number[];
  /** Whole days until the key expires; absent: it never does. */
  readonly expiresInDays?: number;
}

export interface IssuedPlatformKey {
  id: number;
  token: string;
  organizations: number[] | null;
  expiresAt: Date | null;
}

/** Who exists and who belongs where, for a feature whose input names them. */
export abstract class IdentityLookups {
  /** Those of `ids` that name no organization (a batch of events names them, docs/api.md 10.1.1). */
  abstract missingOrganizations(ids: readonly number[]): Promise<number[]>;
  /** 404 not found unless the organization exists. */
  abstract requireOrganization(id: number): Promise<void>;
  /** The CLI's `invalid` unless the user exists. */
  abstract requireUser(id: number): Promise<void>;
  /** The CLI's `invalid` unless the user is a member of the organization. */
  abstract requireMembership(organizationId: number, userId: number): Promise<void>;
}

/** The operator audit trail, for a change an operator command makes through another feature (a recovery, docs/api.md 10.14). */
export abstract class OperatorChanges {
  /** Recorded in that change's transaction. */
  abstract recordOperatorChange(tx: Transaction, change: OperatorChange, at: Date): Promise<void>;
}

/** The operator commands of docs/api.md 8 that identity answers. */
export abstract class IdentityOperations extends IdentityLookups {
  abstract createOrganization(name: string): Promise<number>;
  abstract createUser(email: string, name: string | null): Promise<number>;
  /** Adds the membership, or changes its role: one row per pair. */
  abstract setMembership(organizationId: number, userId: number, role: Role): Promise<void>;
  abstract createSession(userId: number, activeOrganizationId: number | null, ttlSeconds: number): Promise<IssuedToken>;
  abstract revokeSession(token: string): Promise<void>;
  abstract createWalletToken(userId: number, ttlSeconds: number): Promise<IssuedToken>;
  abstract revokeWalletToken(token: string): Promise<void>;
  abstract createPlatformKey(name: string, options?: PlatformKeyOptions): Promise<IssuedPlatformKey>;
  abstract listPlatformKeys(): Promise<PlatformKeyView[]>;
  abstract revokePlatformKey(key: string | { id: number }): Promise<void>;
  /** The operator audit trail (platform keys created and revoked, recoveries made from the CLI), newest first. */
  abstract operatorAudit(limit: number): Promise<OperatorAuditView[]>;
}
