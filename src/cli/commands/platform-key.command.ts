import { Command, Option, SubCommand } from 'nest-commander';
import { IdentityService } from '../../identity/identity.service';
import { parseText, printResult, secretArgument } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

@SubCommand({ name: 'create', description: 'Issue a platform key (the internal platform API sends events with it); prints {"id","token"}' })
export class PlatformKeyCreateCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityService) {
    super();
  }

  async run(_: string[], { name }: { name: string }): Promise<void> {
    printResult(await this.identity.createPlatformKey(name));
  }

  @Option({ flags: '--name <name>', description: 'what the key is for', required: true })
  parseName(value: string): string {
    return parseText(value);
  }
}

@SubCommand({ name: 'revoke', description: 'Revoke a platform key; prints {"revoked":true}' })
export class PlatformKeyRevokeCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityService) {
    super();
  }

  async run(_: string[], { token }: { token: string }): Promise<void> {
    await this.identity.revokePlatformKey(await secretArgument(token));
    printResult({ revoked: true });
  }

  @Option({ flags: '--token <token>', description: 'the platform key; - reads it from standard input', required: true })
  parseToken(value: string): string {
    return parseText(value);
  }
}

@Command({ name: 'platform-key', description: 'Platform keys', subCommands: [PlatformKeyCreateCommand, PlatformKeyRevokeCommand] })
export class PlatformKeyCommand extends GroupCommand {}
