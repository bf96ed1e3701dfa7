import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { SecretBox } from '../crypto/secret-box';
import { PINO } from '../logging/pino.provider';
import { Metrics } from '../metrics/metrics';
import {
  issuerCredentialsBinding,
  IssuedCard,
  IssuerPort,
  ProvisioningCredentials,
  provisioningSecretBinding,
  PushableCard,
} from './issuer.port';
import { PROVISIONING_APP_VERSION, ProcessorCredentials, PushPayloads, PushRequests, Wallet, WalletCall } from './processors/processor';
import { ProcessorClient } from './processors/processor-client';
import { failureAnswer, resultOf } from './processors/processor-outcome';
import { PROCESSORS } from './processors/processors';

/**
 * The issuer port (docs/api.md 3, 6, 6.1): a card's stored credentials, the secret opened on
 * demand; or its processor's payload for a wallet, through the adapter of the issuer's kind. The
 * processor's credentials are opened only for the call. Each call is counted by processor, wallet
 * and outcome; a failure is logged with its outcome and status, never with the answer's body.
 */
@Injectable()
export class CardIssuers extends IssuerPort {
  constructor(
    private readonly secrets: SecretBox,
    private readonly client: ProcessorClient,
    private readonly metrics: Metrics,
    @Inject(PINO) private readonly logger: Logger,
  ) {
    super();
  }

  async provisioningCredentials(card: IssuedCard): Promise<ProvisioningCredentials> {
    return {
      id: card.provisioningId,
      secret: this.secrets.open(card.provisioningSecret, provisioningSecretBinding(card.organizationId, card.cardId)),
    };
  }

  async push<W extends Wallet>(wallet: W, card: PushableCard, request: PushRequests[W]): Promise<PushPayloads[W]> {
    const { issuer } = card;
    const adapter = PROCESSORS[issuer.kind];
    const call = adapter[wallet] as WalletCall<W>;
    const credentials = this.credentialsOf(issuer);
    if (credentials === undefined) {
      this.metrics.processorCalled(issuer.kind, wallet, 'credentials unreadable', 0);
      this.logger.error(
        { processor: issuer.kind, wallet, issuer: issuer.id },
        "an issuer's credentials do not open as a JSON object of strings",
      );
      throw failureAnswer('credentials unreadable', wallet);
    }
    const { path, body } = call.request(card, request);
    const started = performance.now();
    const answer = await this.client.post({
      url: new URL(`${issuer.baseUrl}${path}`),
      headers: {
        authorization: adapter.authorization(credentials),
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': PROVISIONING_APP_VERSION,
      },
      body: JSON.stringify(body),
    });
    const result = resultOf(answer, (answered) => call.payload(answered, card));
    this.metrics.processorCalled(issuer.kind, wallet, result.outcome, (performance.now() - started) / 1000);
    if (result.outcome === 'ok') return result.payload;
    this.logger.warn(
      { processor: issuer.kind, wallet, outcome: result.outcome, status: answer.kind === 'answered' ? answer.status : null },
      "a card processor did not give a wallet's payload",
    );
    throw failureAnswer(result.outcome, wallet);
  }

  /**
   * The issuer's credentials opened for one call, or undefined when they do not open (a key gone,
   * a row tampered with) or are not a JSON object of strings (SecretBox.openJson: its errors never
   * quote the text, the credentials themselves).
   */
  private credentialsOf(issuer: PushableCard['issuer']): ProcessorCredentials | undefined {
    try {
      return this.secrets.openJson(
        issuer.credentials,
        issuerCredentialsBinding(issuer.id),
        "the issuer's credentials",
        processorCredentialsOf,
      );
    } catch {
      return undefined;
    }
  }
}

/** Stored processor credentials, decoded (undefined: not a JSON object of strings). */
function processorCredentialsOf(value: unknown): ProcessorCredentials | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value);
  return entries.every((entry): entry is [string, string] => typeof entry[1] === 'string') ? Object.fromEntries(entries) : undefined;
}
