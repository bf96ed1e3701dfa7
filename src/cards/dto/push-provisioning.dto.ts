import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, ValidateBy } from 'class-validator';
import { Errors } from '../../common/domain-error';
import { answeredWith, Optional, Required } from '../../common/validation/validation.decorators';
import { CARD_NETWORKS } from '../entities/card.entity';
import { APPLE_DEVICE_TYPES, AppleDeviceType, WALLETS } from '../processors/processor';

/*
 * docs/api.md 6.1: the bodies of `POST {p}/card/{id}/provisioning/apple` and `…/google`, the card
 * id of their path, and the answers, as the validation engine checks them and the OpenAPI
 * document describes them.
 */

/** Standard base64 with its padding, at least one character: what a wallet's Data encodes to. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
export const MAX_CERTIFICATES = 3;
export const MAX_CERTIFICATE_LENGTH = 4096;
/** Google's device and wallet account ids: 1 to 64 visible ASCII characters, no space. */
const GOOGLE_ID = /^[!-~]{1,64}$/;

const isBase64 = (value: unknown): boolean => typeof value === 'string' && BASE64.test(value);

function certificatesProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CERTIFICATES) {
    return `must be an array of 1 to ${MAX_CERTIFICATES} certificates, the leaf first`;
  }
  const tooLong = value.findIndex((item) => typeof item === 'string' && item.length > MAX_CERTIFICATE_LENGTH);
  if (tooLong >= 0) return `item ${tooLong + 1} is longer than ${MAX_CERTIFICATE_LENGTH} characters`;
  const notBase64 = value.findIndex((item) => !isBase64(item));
  return notBase64 >= 0 ? `item ${notBase64 + 1} is not base64 (DER)` : undefined;
}

/** A required string of standard base64. */
const Base64Field = (description: string) =>
  applyDecorators(
    ApiProperty({ type: String, format: 'byte', pattern: BASE64.source, description }),
    Required(),
    IsString({ message: 'must be a string' }),
    Matches(BASE64, { message: 'must be base64' }),
  );

/** A required Google id. */
const GoogleIdField = (description: string) =>
  applyDecorators(
    ApiProperty({ type: String, pattern: GOOGLE_ID.source, minLength: 1, maxLength: 64, description }),
    Required(),
    IsString({ message: 'must be a string' }),
    Matches(GOOGLE_ID, { message: 'must be 1 to 64 visible ASCII characters, no space' }),
  );

/** Apple's certificate chain: required, then 1 to 3 items of base64, the leaf first. */
const CertificatesField = () =>
  applyDecorators(
    ApiProperty({
      type: [String],
      minItems: 1,
      maxItems: MAX_CERTIFICATES,
      items: { type: 'string', format: 'byte', pattern: BASE64.source, maxLength: MAX_CERTIFICATE_LENGTH },
      description: "Apple's certificate chain from PKAddPaymentPassViewController, DER in base64, the leaf first",
    }),
    Required(),
    ValidateBy({
      name: 'isCertificateChain',
      validator: {
        validate: (value) => certificatesProblem(value) === undefined,
        defaultMessage: (args) => certificatesProblem(args?.value) ?? '',
      },
    }),
  );

export class ApplePushRequestDto {
  @CertificatesField()
  certificates: string[];

  @Base64Field('The nonce Apple gave the extension, base64')
  nonce: string;

  @Base64Field("The device's signature of the nonce, base64")
  nonceSignature: string;

  @ApiPropertyOptional({ enum: APPLE_DEVICE_TYPES, default: 'phone', description: 'The device the card is added to' })
  @Optional()
  @IsIn(APPLE_DEVICE_TYPES, { message: `must be one of ${APPLE_DEVICE_TYPES.join(', ')}` })
  deviceType?: AppleDeviceType;
}

export class GooglePushRequestDto {
  @GoogleIdField("Google Pay's stable hardware id of the device (getStableHardwareId)")
  clientDeviceId: string;

  @GoogleIdField("Google Pay's active wallet id (getActiveWalletId)")
  clientWalletAccountId: string;
}

const CARD_ID = /^[1-9]\d{0,15}$/;

/**
 * The `{id}` of `…/card/{id}/provisioning/…`: a positive integer below 2^53. Anything else names no
 * card of the caller's, so it answers 404 `no card` as an unknown id does (docs/api.md 6.1).
 */
export class CardPathDto {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && CARD_ID.test(value) ? Number(value) : value))
  @IsInt(answeredWith(() => Errors.noCard()))
  @Max(Number.MAX_SAFE_INTEGER, answeredWith(() => Errors.noCard()))
  id: number;
}

export class ApplePayloadDto {
  @ApiProperty({ format: 'byte', description: 'For PKAddPaymentPassRequest.activationData, as the processor gave it' })
  activationData: string;

  @ApiProperty({ format: 'byte', description: 'For PKAddPaymentPassRequest.encryptedPassData, as the processor gave it' })
  encryptedPassData: string;

  @ApiProperty({ format: 'byte', description: 'For PKAddPaymentPassRequest.ephemeralPublicKey, as the processor gave it' })
  ephemeralPublicKey: string;
}

export class GooglePayloadDto {
  @ApiProperty({ format: 'byte', description: "For PushTokenizeRequest's opaque payment card, as the processor gave it" })
  opaquePaymentCard: string;

  @ApiProperty({ enum: ['VISA', 'MASTERCARD'] })
  network: string;

  @ApiProperty({ enum: ['TOKEN_PROVIDER_VISA', 'TOKEN_PROVIDER_MASTERCARD'] })
  tokenServiceProvider: string;

  @ApiProperty({ description: "The card's title, unless the processor names it" })
  displayName: string;

  @ApiProperty({ pattern: '^[0-9]{4}$', description: 'The last four digits of the card number' })
  lastDigits: string;
}

export class ProvisioningEntryDto {
  @ApiProperty({ description: 'The card id, as a string', example: '42' })
  id: string;

  @ApiProperty({ maxLength: 64 })
  title: string;

  @ApiProperty({ maxLength: 128 })
  cardholderName: string;

  @ApiProperty({ pattern: '^[0-9]{4}$' })
  primaryAccountSuffix: string;

  @ApiProperty({ enum: CARD_NETWORKS })
  network: string;

  @ApiProperty({ enum: WALLETS, isArray: true })
  wallets: string[];
}

export class ProvisioningEntriesDto {
  @ApiProperty({
    type: [ProvisioningEntryDto],
    description: "The caller's active and frozen cards whose issuer has a processor, newest first",
  })
  data: ProvisioningEntryDto[];
}
