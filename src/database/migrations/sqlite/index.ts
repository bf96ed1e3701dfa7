import type { SecretBox } from '../../../crypto/secret-box';
import { bindSealedSecrets } from '../shared/1795600000000-bind-sealed-secrets';
import { InitialSchema1795342000000 } from './1795342000000-initial-schema';
import { EventDelivery1795700000000 } from './1795700000000-event-delivery';
import { PreviousSigningSecret1795800000000 } from './1795800000000-previous-signing-secret';
import { AuditTrail1795900000000 } from './1795900000000-audit-trail';
import { FairDelivery1796000000000 } from './1796000000000-fair-delivery';
import { PlatformKeyScopes1796100000000 } from './1796100000000-platform-key-scopes';
import { BinaryIdempotencyKeys1796200000000 } from './1796200000000-binary-idempotency-keys';
import { DeliveryLanes1796300000000 } from './1796300000000-delivery-lanes';
import { WebhookSubscriptionsAndHeaders1796400000000 } from './1796400000000-webhook-subscriptions-and-headers';
import { DeliveryLogFilters1796410000000 } from './1796410000000-delivery-log-filters';
import { DeliveryRecovery1796420000000 } from './1796420000000-delivery-recovery';
import { ReceiversAsCompaniesRunThem1796440000000 } from './1796440000000-receivers-as-companies-run-them';

/** Applied in this order; append new migrations, never edit landed ones. Some need the keys. */
export const sqliteMigrations = (secrets: SecretBox) => [
  InitialSchema1795342000000,
  bindSealedSecrets(secrets),
  EventDelivery1795700000000,
  PreviousSigningSecret1795800000000,
  AuditTrail1795900000000,
  FairDelivery1796000000000,
  PlatformKeyScopes1796100000000,
  BinaryIdempotencyKeys1796200000000,
  DeliveryLanes1796300000000,
  WebhookSubscriptionsAndHeaders1796400000000,
  DeliveryLogFilters1796410000000,
  DeliveryRecovery1796420000000,
  ReceiversAsCompaniesRunThem1796440000000,
];
