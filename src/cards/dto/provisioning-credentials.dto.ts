import { ApiProperty } from '@nestjs/swagger';

export class ProvisioningCredentialsDto {
  @ApiProperty({ description: 'Push-provisioning id of the card' }) id: string;
  @ApiProperty({ description: 'Push-provisioning secret of the card' }) secret: string;
}
