import { DynamicModule, Module } from '@nestjs/common';
import pino from 'pino';
import { AppConfig } from '../config/app-config';
import { CardsModule } from '../cards/cards.module';
import { ConfigModule } from '../config/config.module';
import { CryptoModule } from '../crypto/crypto.module';
import { TracingModule } from '../tracing/tracing.module';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../delivery/events/events.module';
import { RecoveryModule } from '../delivery/recovery/recovery.module';
import { IdentityModule } from '../identity/identity.module';
import { LoggingModule } from '../logging/logging.module';
import { createPino } from '../logging/pino.provider';
import { AuditCommand, AuditListCommand } from './commands/audit.command';
import { EventCommand, EventSendCommand } from './commands/event.command';
import {
  PlatformKeyCommand,
  PlatformKeyCreateCommand,
  PlatformKeyListCommand,
  PlatformKeyRevokeCommand,
} from './commands/platform-key.command';
import { CardCommand, CardCreateCommand, CardSetStatusCommand } from './commands/card.command';
import { IssuerCommand, IssuerCreateCommand } from './commands/issuer.command';
import { MemberAddCommand, MemberCommand } from './commands/member.command';
import { MigrateCommand } from './commands/migrate.command';
import { OrgCommand, OrgCreateCommand } from './commands/org.command';
import { SessionCommand, SessionCreateCommand, SessionRevokeCommand } from './commands/session.command';
import { UserCommand, UserCreateCommand } from './commands/user.command';
import { WalletTokenCommand, WalletTokenCreateCommand, WalletTokenRevokeCommand } from './commands/wallet-token.command';
import { WebhookCommand, WebhookRecoverCommand } from './commands/webhook.command';

/** The operator CLI (docs/api.md 8): the same configuration and services as the server, no HTTP. */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        // The CLI delivers nothing itself: the servers' dispatchers send what it hands in.
        ConfigModule.forRoot(new AppConfig({ ...config, delivery: { ...config.delivery, concurrency: 0 } })),
        LoggingModule.forRoot(createPino('error', pino.destination(2))),
        DatabaseModule,
        CryptoModule,
        TracingModule,
        IdentityModule,
        CardsModule,
        // The parts of delivery whose services the commands call (event send, webhook recover).
        EventsModule,
        RecoveryModule,
      ],
      providers: [
        MigrateCommand,
        OrgCommand,
        OrgCreateCommand,
        UserCommand,
        UserCreateCommand,
        MemberCommand,
        MemberAddCommand,
        SessionCommand,
        SessionCreateCommand,
        SessionRevokeCommand,
        IssuerCommand,
        IssuerCreateCommand,
        CardCommand,
        CardCreateCommand,
        CardSetStatusCommand,
        WalletTokenCommand,
        WalletTokenCreateCommand,
        WalletTokenRevokeCommand,
        PlatformKeyCommand,
        PlatformKeyCreateCommand,
        PlatformKeyListCommand,
        PlatformKeyRevokeCommand,
        EventCommand,
        EventSendCommand,
        WebhookCommand,
        WebhookRecoverCommand,
        AuditCommand,
        AuditListCommand,
      ],
    };
  }
}
