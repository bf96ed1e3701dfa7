import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Allow, IsIn, IsString, Length, ValidateBy } from 'class-validator';
import { NestedObject, Optional, Required } from '../../common/validation/validation.decorators';
import { certificateProblem, privateKeyProblem } from '../client-certificate';
import { AUTH_TYPES, OAUTH2_LENGTHS } from '../receiver-auth';
import { UrlField } from './webhook-field.decorators';

/*
 * A webhook's `auth` (docs/api.md 10.16) as its bodies take it and its reads show it: one class
 * per type, chosen by the body's `type`, so that each member is validated and named by its path
 * (`auth.clientId: …`). A problem never quotes a secret or a PEM.
 */

/** A text member of 1 to `max` characters; `required` makes a missing one an error. */
const TextField = (max: number, { required = true, description }: { required?: boolean; description: string }) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({ type: String, minLength: 1, maxLength: max, description }),
    required ? Required() : Optional(),
    IsString({ message: 'must be a string' }),
    Length(1, max, { message: `must be 1 to ${max} characters` }),
  );

const TypeField = (...types: (typeof AUTH_TYPES)[number][]) =>
  applyDecorators(ApiProperty({ enum: types }), Required(), IsIn(types, { message: `must be ${types.join(' or ')}` }));

/** A PEM member, checked by `problem` over the whole auth object (a key is checked against its certificate). */
const PemField = (description: string, name: string, problem: (pem: string, auth: MtlsAuthDto) => string | undefined) =>
  applyDecorators(
    ApiProperty({ type: String, description }),
    Required(),
    IsString({ message: 'must be a string' }),
    ValidateBy({
      name,
      validator: {
        validate: (value, args) => problem(value as string, args?.object as MtlsAuthDto) === undefined,
        defaultMessage: (args) => problem(args?.value as string, args?.object as MtlsAuthDto) ?? '',
      },
    }),
  );

export class OAuth2AuthDto {
  @TypeField('oauth2') type: 'oauth2';
  @UrlField({ required: true }) tokenUrl: string;
  @TextField(OAUTH2_LENGTHS.clientId, { description: 'The client id' }) clientId: string;
  @TextField(OAUTH2_LENGTHS.clientSecret, { description: 'The client secret: stored encrypted, never shown again' })
  clientSecret: string;
  @TextField(OAUTH2_LENGTHS.scope, { required: false, description: 'Sent as the token request’s scope' }) scope?: string;
  @TextField(OAUTH2_LENGTHS.audience, { required: false, description: 'Sent as the token request’s audience' }) audience?: string;
}

export class MtlsAuthDto {
  @TypeField('mtls') type: 'mtls';
  @PemField('PEM: the client certificate, valid now, then any intermediates', 'isClientCertificate', (pem) => certificateProblem(pem))
  certificate: string;
  @PemField(
    "PEM, unencrypted (PKCS#8, or the traditional RSA or EC form): the certificate's key, RSA of 2048 to 4096 bits with a public exponent of at most 2^32, or EC P-256 or P-384. Stored encrypted, never shown again",
    'isClientKey',
    (pem, auth) => privateKeyProblem(pem, auth.certificate),
  )
  privateKey: string;
}

/** An `auth` whose type is neither: only its type is named as wrong, whatever else it holds. */
class AuthOfUnknownTypeDto {
  @TypeField(...AUTH_TYPES) type: string;
  @Allow() tokenUrl?: unknown;
  @Allow() clientId?: unknown;
  @Allow() clientSecret?: unknown;
  @Allow() scope?: unknown;
  @Allow() audience?: unknown;
  @Allow() certificate?: unknown;
  @Allow() privateKey?: unknown;
}

const AUTH_SCHEMAS = [{ $ref: getSchemaPath(OAuth2AuthDto) }, { $ref: getSchemaPath(MtlsAuthDto) }];

/** `auth` (docs/api.md 10.16): optional; in a patch, replaced as a whole, and null removes it. */
export const AuthField = ({ nullable = false } = {}) =>
  applyDecorators(
    ApiPropertyOptional({
      oneOf: nullable ? [...AUTH_SCHEMAS, { type: 'null' }] : AUTH_SCHEMAS,
      description:
        'How the service authenticates to the receiver: an OAuth 2.0 access token (client credentials) or a client certificate' +
        (nullable ? '. Replaced as a whole; null removes it' : ''),
    }),
    Optional({ nullable }),
    NestedObject((webhook) => {
      const type = (webhook.auth as { type?: unknown } | undefined)?.type;
      return type === 'oauth2' ? OAuth2AuthDto : type === 'mtls' ? MtlsAuthDto : AuthOfUnknownTypeDto;
    }),
  );

export class OAuth2AuthViewDto {
  @ApiProperty({ enum: ['oauth2'] }) type: 'oauth2';
  @ApiProperty({ format: 'uri' }) tokenUrl: string;
  @ApiProperty() clientId: string;
  @ApiPropertyOptional() scope?: string;
  @ApiPropertyOptional() audience?: string;
}

export class CertificateViewDto {
  @ApiProperty({ description: "The client certificate's subject: its attributes in the certificate's order, `CN=…, O=…`" }) subject: string;
  @ApiProperty({ format: 'date-time', description: 'When it expires' }) notAfter: string;
  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'The SHA-256 of its DER, hex' }) sha256: string;
}

export class MtlsAuthViewDto {
  @ApiProperty({ enum: ['mtls'] }) type: 'mtls';
  @ApiProperty({ type: () => CertificateViewDto }) certificate: CertificateViewDto;
}

/** The models the `auth` members refer to: the controller lists them (ApiExtraModels). */
export const AUTH_MODELS = [OAuth2AuthDto, MtlsAuthDto, OAuth2AuthViewDto, MtlsAuthViewDto];
