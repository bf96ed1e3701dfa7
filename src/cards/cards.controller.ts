import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, WalletExtension } from '../auth/auth.decorators';
import type { WalletCaller } from '../identity/caller';
import { ApiErrorResponses } from '../http/openapi-errors';
import { ProvisioningCredentialsDto } from './dto/provisioning-credentials.dto';
import { CardsService } from './cards.service';

@ApiTags('cards')
@Controller('card')
export class CardsController {
  constructor(private readonly cards: CardsService) {}

  @Get('provisioning')
  @WalletExtension()
  @ApiOperation({
    summary: "Push-provisioning credentials of the caller's newest active or frozen card",
    description: 'Wallet extensions only: a request carrying any Cookie or a sessionid header is refused. Never cached.',
  })
  @ApiOkResponse({ type: ProvisioningCredentialsDto, headers: { 'Cache-Control': { schema: { type: 'string', enum: ['no-store'] } } } })
  @ApiErrorResponses({ 403: ['no issuer'], 404: ['no card'] })
  getCardProvisioning(@Caller() caller: WalletCaller) {
    return this.cards.provisioningFor(caller.userId);
  }
}
