import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessTokenEntity } from './entities/access-token.entity';
import { MemberEntity } from './entities/member.entity';
import { OrganizationEntity } from './entities/organization.entity';
import { OperatorAuditEntryEntity } from './entities/operator-audit-entry.entity';
import { PlatformKeyOrganizationEntity } from './entities/platform-key-organization.entity';
import { PlatformKeyEntity } from './entities/platform-key.entity';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';
import { IdentityAccess } from './identity-access';
import { IdentityAccessService } from './identity-access.service';
import { IdentityRepository } from './identity.repository';
import { IdentityLookups, IdentityOperations, OperatorChanges } from './identity-ports';
import { IdentityService } from './identity.service';
import { OperatorAuditRepository } from './operator-audit.repository';
import { PlatformKeysRepository } from './platform-keys.repository';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      OrganizationEntity,
      UserEntity,
      MemberEntity,
      SessionEntity,
      AccessTokenEntity,
      PlatformKeyEntity,
      PlatformKeyOrganizationEntity,
      OperatorAuditEntryEntity,
    ]),
  ],
  providers: [
    IdentityRepository,
    PlatformKeysRepository,
    OperatorAuditRepository,
    IdentityService,
    { provide: IdentityAccess, useClass: IdentityAccessService },
    { provide: IdentityLookups, useExisting: IdentityService },
    { provide: OperatorChanges, useExisting: IdentityService },
    { provide: IdentityOperations, useExisting: IdentityService },
  ],
  // Ports only (identity-access.ts, identity-ports.ts): authentication, the features that name organizations and users, the audit trail, the CLI.
  exports: [IdentityAccess, IdentityLookups, OperatorChanges, IdentityOperations],
})
export class IdentityModule {}
