import { CardEntity } from '../cards/entities/card.entity';
import { IssuerEntity } from '../cards/entities/issuer.entity';
import { AccessTokenEntity } from '../identity/entities/access-token.entity';
import { MemberEntity } from '../identity/entities/member.entity';
import { OrganizationEntity } from '../identity/entities/organization.entity';
import { SessionEntity } from '../identity/entities/session.entity';
import { UserEntity } from '../identity/entities/user.entity';
import { WebhookSourceEntity } from '../webhooks/entities/webhook-source.entity';
import { WebhookEntity } from '../webhooks/entities/webhook.entity';

/** Every table of the schema; the migrations of both dialects create exactly these. */
export const ENTITIES = [
  OrganizationEntity,
  UserEntity,
  MemberEntity,
  SessionEntity,
  AccessTokenEntity,
  IssuerEntity,
  CardEntity,
  WebhookSourceEntity,
  WebhookEntity,
];
