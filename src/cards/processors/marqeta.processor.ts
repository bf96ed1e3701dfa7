import {
  AppleDeviceType,
  applePayloadOf,
  googlePayloadOf,
  memberOf,
  ProcessorAdapter,
  PROVISIONING_APP_VERSION,
  textOf,
} from './processor';

/*
 * Marqeta's Core API (docs/decisions.md cites the references): `POST
 * /digitalwalletprovisionrequests/applepay` and `/androidpay` below the program's base URL
 * (`https://<program>-api.marqeta.com/v3`), HTTP Basic with the application token as user name
 * and the admin access token as password, snake_case JSON both ways.
 */

const DEVICE_TYPES: Record<AppleDeviceType, string> = { phone: 'MOBILE_PHONE', watch: 'WATCH', tablet: 'TABLET' };

export const marqeta: ProcessorAdapter = {
  credentialNames: ['username', 'password'],

  authorization: ({ username, password }) => `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`,

  apple: {
    request: (card, push) => ({
      path: '/digitalwalletprovisionrequests/applepay',
      body: {
        card_token: card.processorToken,
        device_type: DEVICE_TYPES[push.deviceType],
        provisioning_app_version: PROVISIONING_APP_VERSION,
        certificates: push.certificates,
        nonce: push.nonce,
        nonce_signature: push.nonceSignature,
      },
    }),
    payload: (answer) =>
      applePayloadOf(answer, {
        activationData: 'activation_data',
        encryptedPassData: 'encrypted_pass_data',
        ephemeralPublicKey: 'ephemeral_public_key',
      }),
  },

  google: {
    // The extension sends no device type for Google: a phone, the one Google Pay's push provisioning serves.
    request: (card, push) => ({
      path: '/digitalwalletprovisionrequests/androidpay',
      body: {
        card_token: card.processorToken,
        device_id: push.clientDeviceId,
        device_type: DEVICE_TYPES.phone,
        provisioning_app_version: PROVISIONING_APP_VERSION,
        wallet_account_id: push.clientWalletAccountId,
      },
    }),
    payload: (answer, card) => {
      const data = memberOf(answer, 'push_tokenize_request_data');
      const opaquePaymentCard = textOf(memberOf(data, 'opaque_payment_card'));
      return opaquePaymentCard === undefined
        ? undefined
        : googlePayloadOf(opaquePaymentCard, card, {
            network: textOf(memberOf(data, 'network')),
            tokenServiceProvider: textOf(memberOf(data, 'token_service_provider')),
            displayName: textOf(memberOf(data, 'display_name')),
            lastDigits: textOf(memberOf(data, 'last_digits')),
          });
    },
  },
};
