import { validateBody } from '../common/validation/validate-input';
import { ApplePushRequestDto, GooglePushRequestDto } from './dto/push-provisioning.dto';
import type { PushRequests, Wallet } from './processors/processor';

/** A wallet's request body, validated (docs/api.md 6.1: 400 `bad request` naming each field that breaks its rules). */
export const PUSH_REQUESTS: { readonly [W in Wallet]: (body: unknown) => PushRequests[W] } = {
  apple: (body) => {
    const { certificates, nonce, nonceSignature, deviceType } = validateBody(ApplePushRequestDto, body);
    return { certificates, nonce, nonceSignature, deviceType: deviceType ?? 'phone' };
  },
  google: (body) => {
    const { clientDeviceId, clientWalletAccountId } = validateBody(GooglePushRequestDto, body);
    return { clientDeviceId, clientWalletAccountId };
  },
};
