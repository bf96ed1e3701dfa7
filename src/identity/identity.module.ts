import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccessTokenEntity } from './entities/access-token.entity';
import { MemberEntity } from './entities/member.entity';
import { OrganizationEntity } from './entities/organization.entity';
import { PlatformKeyEntity } from './entities/platform-key.entity';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';
import { IdentityRepository } from './identity.repository';
import { IdentityService } from './identity.service';

@Module({
  imports: [TypeOrmModule.forFeature([OrganizationEntity, UserEntity, MemberEntity, SessionEntity, AccessTokenEntity, PlatformKeyEntity])],
  providers: [IdentityRepository, IdentityService],
  exports: [IdentityRepository, IdentityService],
})
export class IdentityModule {}
