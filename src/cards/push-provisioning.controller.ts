import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Caller, WalletExtension } from '../auth/auth.decorators';
import { ApiErrorResponses } from '../http/openapi-errors';
import type { WalletCaller } from '../identity/caller';
import {
  ApplePayloadDto,
  ApplePushRequestDto,
  GooglePayloadDto,
  GooglePushRequestDto,
  ProvisioningEntriesDto,
} from './dto/push-provisioning.dto';
import { PushLimitGuard } from './push-limit.guard';
import { PushProvisioningService } from './push-provisioning.service';
import { PushInput, PushRequestInput, PushRequestPipe } from './push-request.pipe';

const NO_STORE = { 'Cache-Control': { schema: { type: 'string', enum: ['no-store'] } } };
const CARD_ID = ApiParam({
  name: 'id',
  description: "One of the caller's cards (an entry's id)",
  schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
});
const PUSH_ERRORS = ApiErrorResponses({
  400: ['bad request'],
  403: ['no issuer'],
  404: ['no card'],
  429: ['rate limited'],
  503: ['issuer unavailable', 'unavailable'],
});
const PUSH_NOTE =
  "Wallet extensions only (never with a cookie). Counted against the user's 10 a minute. The processor's answer body is never passed on. Never cached.";

/** Wallet push provisioning through the card's processor (docs/api.md 6.1): the cards to offer, then a wallet's payload for one. */
@ApiTags('cards')
@WalletExtension()
@Controller('card')
export class PushProvisioningController {
  constructor(private readonly provisioning: PushProvisioningService) {}

  @Get('provisioning/entries')
  @ApiOperation({
    summary: "The caller's cards a wallet can add: active or frozen, of an issuer with a processor, newest first",
    description: 'Wallet extensions only (never with a cookie). Never cached.',
  })
  @ApiOkResponse({ type: ProvisioningEntriesDto, headers: NO_STORE })
  getProvisioningEntries(@Caller() caller: WalletCaller) {
    return this.provisioning.entries(caller.userId);
  }

  @Post(':id/provisioning/apple')
  @HttpCode(200)
  @UseGuards(PushLimitGuard)
  @ApiOperation({ summary: "Apple Pay's encrypted pass data for the card, from its processor", description: PUSH_NOTE })
  @CARD_ID
  @ApiBody({ type: ApplePushRequestDto })
  @ApiOkResponse({ type: ApplePayloadDto, headers: NO_STORE })
  @PUSH_ERRORS
  provisionAppleWallet(@PushRequestInput(PushRequestPipe('apple')) { card, request }: PushInput<'apple'>) {
    return this.provisioning.push('apple', card, request);
  }

  @Post(':id/provisioning/google')
  @HttpCode(200)
  @UseGuards(PushLimitGuard)
  @ApiOperation({ summary: "Google Pay's opaque payment card for the card, from its processor", description: PUSH_NOTE })
  @CARD_ID
  @ApiBody({ type: GooglePushRequestDto })
  @ApiOkResponse({ type: GooglePayloadDto, headers: NO_STORE })
  @PUSH_ERRORS
  provisionGoogleWallet(@PushRequestInput(PushRequestPipe('google')) { card, request }: PushInput<'google'>) {
    return this.provisioning.push('google', card, request);
  }
}
