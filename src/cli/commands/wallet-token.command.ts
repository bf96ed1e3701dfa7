import { Command, Option, SubCommand } from 'nest-commander';
import { DEFAULT_WALLET_TOKEN_TTL_SECONDS, IdentityOperations } from '../../identity/identity-ports';
import { parseId, parseSeconds, parseText, secretArgument } from '../cli-options';
import { printResult } from '../cli-output';
import { GroupCommand } from './group.command';
import { OperatorCommand } from './operator-command';

@SubCommand({ name: 'create', description: 'Issue a wallet_extension access token; prints {"token","expiresAt"}' })
export class WalletTokenCreateCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], { user, ttl }: { user: number; ttl?: number }): Promise<void> {
    const { token, expiresAt } = await this.identity.createWalletToken(user, ttl ?? DEFAULT_WALLET_TOKEN_TTL_SECONDS);
    printResult({ token, expiresAt: expiresAt.toISOString() });
  }

  @Option({ flags: '--user <id>', description: 'the token is for this user', required: true })
  parseUser(value: string): number {
    return parseId(value);
  }

  @Option({ flags: '--ttl <seconds>', description: `lifetime (default ${DEFAULT_WALLET_TOKEN_TTL_SECONDS})` })
  parseTtl(value: string): number {
    return parseSeconds(value);
  }
}

@SubCommand({ name: 'revoke', description: 'Revoke a wallet_extension access token; prints {"revoked":true}' })
export class WalletTokenRevokeCommand extends OperatorCommand {
  constructor(private readonly identity: IdentityOperations) {
    super();
  }

  async run(_: string[], { token }: { token: string }): Promise<void> {
    await this.identity.revokeWalletToken(await secretArgument(token));
    printResult({ revoked: true });
  }

  @Option({ flags: '--token <token>', description: 'the wallet token; - reads it from standard input', required: true })
  parseToken(value: string): string {
    return parseText(value);
  }
}

@Command({
  name: 'wallet-token',
  description: 'Wallet-extension access tokens',
  subCommands: [WalletTokenCreateCommand, WalletTokenRevokeCommand],
})
export class WalletTokenCommand extends GroupCommand {}
