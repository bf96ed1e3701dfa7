import type { Actor } from '../../common/actor';
import type { RecoveredDeliveriesDto } from './dto/recovery.dto';
import type { RecoveryRequest } from './recovery-window';

/** A recovery as the CLI's `webhook recover` starts it (docs/api.md 8, 10.14): the port RecoveryModule exports, bound to DeliveryRecoveryService. */
export abstract class WebhookRecoveries {
  /** Replays every failed delivery of the webhook created in the window, as `POST {p}/webhook/{name}/recover` does. */
  abstract recover(
    organizationId: number,
    actor: Actor,
    name: string,
    request: RecoveryRequest,
    idempotencyKey?: string,
  ): Promise<RecoveredDeliveriesDto>;
}
