import { Command, Option, SubCommand } from 'nest-commander';
import { DEFAULT_SESSION_TTL_SECONDS, IdentityOperations } from '../../identity/identity-ports';
import { parseId, parseSeconds, parseText, secretArgument } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

@SubCommand({ name: 'create', description: 'Create a session; prints {"token","expiresAt"}' })
export class SessionCreateCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], { user, org, ttl }: { user: number; org?: number; ttl?: number }): Promise<void> {
    const { token, expiresAt } = await this.identity.createSession(user, org ?? null, ttl ?? DEFAULT_SESSION_TTL_SECONDS);
    printResult({ token, expiresAt: expiresAt.toISOString() });
  }

  @Option({ flags: '--user <id>', description: 'user id', required: true })
  parseUser(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--org <id>', description: 'active organization (the user must be a member)' })
  parseOrg(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--ttl <seconds>', description: `lifetime (default ${DEFAULT_SESSION_TTL_SECONDS})` })
  parseTtl(value: string): number {
    return parseSeconds(value);
  }
}

@SubCommand({ name: 'revoke', description: 'Revoke a session; prints {"revoked":true}' })
export class SessionRevokeCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], { token }: { token: string }): Promise<void> {
    await this.identity.revokeSession(await secretArgument(token));
    printResult({ revoked: true });
  }

  @Option({ flags: '--token <token>', description: 'the session token; - reads it from standard input', required: true })
  parseToken(value: string): string {
    return parseText(value);
  }
}

@Command({ name: 'session', description: 'Browser sessions', subCommands: [SessionCreateCommand, SessionRevokeCommand] })
export class SessionCommand extends GroupCommand {}
