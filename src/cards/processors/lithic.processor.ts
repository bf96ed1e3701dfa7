import { applePayloadOf, googlePayloadOf, memberOf, ProcessorAdapter, textOf } from './processor';

/*
 * Lithic's API (docs/decisions.md cites the references): `POST /v1/cards/{card_token}/provision`
 * below `https://api.lithic.com`, the API key alone as `Authorization`, one endpoint for every
 * wallet (`digital_wallet`). Its Apple answer is an object, its Google answer the opaque payment
 * card itself (base64 text).
 */

const provisionPath = (token: string) => `/v1/cards/${encodeURIComponent(token)}/provision`;

export const lithic: ProcessorAdapter = {
  credentialNames: ['apiKey'],

  authorization: ({ apiKey }) => apiKey,

  apple: {
    // Lithic takes the leaf certificate alone (docs/api.md 6.1).
    request: (card, push) => ({
      path: provisionPath(card.processorToken),
      body: { digital_wallet: 'APPLE_PAY', certificate: push.certificates[0], nonce: push.nonce, nonce_signature: push.nonceSignature },
    }),
    payload: (answer) =>
      applePayloadOf(memberOf(answer, 'provisioning_payload'), {
        activationData: 'activationData',
        encryptedPassData: 'encryptedData',
        ephemeralPublicKey: 'ephemeralPublicKey',
      }),
  },

  google: {
    request: (card, push) => ({
      path: provisionPath(card.processorToken),
      body: { digital_wallet: 'GOOGLE_PAY', client_device_id: push.clientDeviceId, client_wallet_account_id: push.clientWalletAccountId },
    }),
    payload: (answer, card) => {
      const opaquePaymentCard = textOf(memberOf(answer, 'provisioning_payload'));
      return opaquePaymentCard === undefined ? undefined : googlePayloadOf(opaquePaymentCard, card);
    },
  },
};
