import { Command, Option, SubCommand } from 'nest-commander';
import { IdentityOperations } from '../../identity/identity-ports';
import { parseDays, parseId, parseIdList, parseText, secretArgument, UsageError } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

interface CreateOptions {
  name: string;
  org?: number[];
  expiresIn?: number;
}

@SubCommand({
  name: 'create',
  description: 'Issue a platform key (the internal platform API sends events with it); prints {"id","token","organizations","expiresAt"}',
})
export class PlatformKeyCreateCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], { name, org, expiresIn }: CreateOptions): Promise<void> {
    const { id, token, organizations, expiresAt } = await this.identity.createPlatformKey(name, {
      organizations: org,
      expiresInDays: expiresIn,
    });
    printResult({ id, token, organizations, expiresAt: expiresAt?.toISOString() ?? null });
  }

  @Option({ flags: '--name <name>', description: 'what the key is for', required: true })
  parseName(value: string): string {
    return parseText(value);
  }

  @Option({ flags: '--org <ids>', description: 'restrict the key to these organizations, comma-separated (default: every organization)' })
  parseOrg(value: string): number[] {
    return parseIdList(value);
  }

  @Option({ flags: '--expires-in <days>', description: 'the key stops working after this many days (default: never)' })
  parseExpiresIn(value: string): number {
    return parseDays(value);
  }
}

@SubCommand({ name: 'list', description: 'Every platform key, never its token; prints {"keys":[…]}' })
export class PlatformKeyListCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(): Promise<void> {
    printResult({ keys: await this.identity.listPlatformKeys() });
  }
}

@SubCommand({ name: 'revoke', description: 'Revoke a platform key, named by --id or by --token; prints {"revoked":true}' })
export class PlatformKeyRevokeCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], { id, token }: { id?: number; token?: string }): Promise<void> {
    if ((id === undefined) === (token === undefined)) throw new UsageError('give exactly one of --id and --token');
    await this.identity.revokePlatformKey(id === undefined ? await secretArgument(token!) : { id });
    printResult({ revoked: true });
  }

  @Option({ flags: '--id <id>', description: 'the id of the key (platform-key list)' })
  parseId(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--token <token>', description: 'the platform key itself; - reads it from standard input' })
  parseToken(value: string): string {
    return parseText(value);
  }
}

@Command({
  name: 'platform-key',
  description: 'Platform keys',
  subCommands: [PlatformKeyCreateCommand, PlatformKeyListCommand, PlatformKeyRevokeCommand],
})
export class PlatformKeyCommand extends GroupCommand {}
