import { actorOf } from '../common/actor';
import { Controller, Delete, Get, Header, HttpCode, Patch, Post, UseGuards } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiOkResponse,
  ApiCreatedResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { Authenticated, Caller } from '../auth/auth.decorators';
import type { SessionCaller } from '../identity/caller';
import type { ErrorCode } from '../common/domain-error';
import { RequestInput } from '../common/validation/request-input';
import { ApiErrorResponses } from '../http/openapi-errors';
import { SessionRateLimitGuard } from '../rate-limit/session-rate-limit.guard';
import { CreateWebhookDto, DeleteWebhookDto, ReplaceWebhookDto, RotateSecretDto } from './dto/webhook-body.dto';
import { WebhookPatchDto } from './dto/webhook-patch.dto';
import { AUTH_MODELS } from './dto/webhook-auth.dto';
import {
  CreatedWebhookDto,
  DeleteResultDto,
  NamedWebhookDto,
  ReplacedWebhookDto,
  RotatedSecretDto,
  WebhookDto,
} from './dto/webhook-responses.dto';
import {
  CreateWebhookPipe,
  DeleteWebhookByBodyPipe,
  NamedDraft,
  ReplaceWebhookPipe,
  RotateSecretPipe,
  UpdateWebhookPipe,
  WebhookNamePipe,
} from './webhook-validation.pipes';
import type { WebhookPatch } from './webhook.model';
import { WEBHOOK_NAME_PATTERN } from './webhook.model';
import { WebhooksService } from './webhooks.service';

const NameParam = () => ApiParam({ name: 'name', schema: { type: 'string', pattern: WEBHOOK_NAME_PATTERN.source } });
const DELETED = { code: 'ok' } as const;
/** Writes can also meet the Origin rule (ALLOWED_ORIGINS). */
const WRITE_FORBIDDEN: ErrorCode[] = ['forbidden origin', 'no organization', 'no permission'];

// Each route's input goes through its one pipe (webhook-validation.pipes.ts), which checks the
// path's name, the body's shape and its URLs in docs/api.md 5's order.
@ApiTags('webhooks')
@ApiExtraModels(WebhookDto, ...AUTH_MODELS)
@Authenticated({ roles: ['owner', 'admin'] })
@UseGuards(SessionRateLimitGuard)
@ApiErrorResponses({ 429: ['rate limited'] })
@Controller('webhook')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({ summary: "The organization's webhooks, keyed by name (keys sorted)" })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: { $ref: getSchemaPath(WebhookDto) } } })
  @Header('Content-Type', 'application/json; charset=utf-8')
  listWebhooks(@Caller() caller: SessionCaller): Promise<string> {
    return this.webhooks.listJson(caller.organizationId);
  }

  @Get(':name')
  @ApiOperation({ summary: 'One webhook' })
  @NameParam()
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrorResponses({ 400: ['invalid name'], 404: ['not found'] })
  getWebhook(@Caller() caller: SessionCaller, @RequestInput(WebhookNamePipe) name: string) {
    return this.webhooks.get(caller.organizationId, name);
  }

  @Post(':name')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a webhook; the answer carries its signing secret, shown only once' })
  @NameParam()
  @ApiBody({ type: CreateWebhookDto })
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  @ApiErrorResponses({
    400: ['invalid name', 'bad request', 'invalid url', 'limit reached'],
    403: WRITE_FORBIDDEN,
    409: ['name conflict'],
    413: ['payload too large'],
    415: ['unsupported media type'],
    503: ['dns unavailable', 'unavailable'],
  })
  createWebhook(@Caller() caller: SessionCaller, @RequestInput(CreateWebhookPipe) { name, draft }: NamedDraft) {
    return this.webhooks.create(caller.organizationId, actorOf(caller), name, draft);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create or replace a webhook (legacy); keeps and returns the signing secret' })
  @ApiBody({ type: ReplaceWebhookDto })
  @ApiOkResponse({ type: ReplacedWebhookDto })
  @ApiErrorResponses({
    400: ['invalid name', 'bad request', 'invalid url', 'limit reached'],
    403: WRITE_FORBIDDEN,
    413: ['payload too large'],
    415: ['unsupported media type'],
    503: ['dns unavailable', 'unavailable'],
  })
  replaceWebhook(@Caller() caller: SessionCaller, @RequestInput(ReplaceWebhookPipe) { name, draft }: NamedDraft) {
    return this.webhooks.replace(caller.organizationId, actorOf(caller), name, draft);
  }

  @Patch(':name')
  @ApiOperation({ summary: 'Update a webhook (JSON Merge Patch); the secret is kept and not returned' })
  @NameParam()
  @ApiConsumes('application/json', 'application/merge-patch+json')
  @ApiBody({ type: WebhookPatchDto })
  @ApiOkResponse({ type: NamedWebhookDto })
  @ApiErrorResponses({
    400: ['invalid name', 'bad request', 'invalid url'],
    403: WRITE_FORBIDDEN,
    404: ['not found'],
    413: ['payload too large'],
    415: ['unsupported media type'],
    503: ['dns unavailable', 'unavailable'],
  })
  updateWebhook(@Caller() caller: SessionCaller, @RequestInput(UpdateWebhookPipe) { name, patch }: { name: string; patch: WebhookPatch }) {
    return this.webhooks.update(caller.organizationId, actorOf(caller), name, patch);
  }

  @Post(':name/secret/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'A new signing secret, shown once; the previous one signs beside it until graceSeconds pass (0: dropped now)' })
  @NameParam()
  @ApiBody({ type: RotateSecretDto, required: false })
  @ApiOkResponse({ type: RotatedSecretDto })
  @ApiErrorResponses({
    400: ['invalid name', 'bad request'],
    403: WRITE_FORBIDDEN,
    404: ['not found'],
    413: ['payload too large'],
    415: ['unsupported media type'],
  })
  rotateWebhookSecret(
    @Caller() caller: SessionCaller,
    @RequestInput(RotateSecretPipe) { name, graceSeconds }: { name: string; graceSeconds: number },
  ) {
    return this.webhooks.rotateSecret(caller.organizationId, actorOf(caller), name, graceSeconds);
  }

  @Delete(':name')
  @ApiOperation({ summary: 'Delete a webhook; deleting the last one removes the source record' })
  @NameParam()
  @ApiOkResponse({ type: DeleteResultDto })
  @ApiErrorResponses({ 400: ['invalid name'], 403: WRITE_FORBIDDEN, 404: ['not found'] })
  async deleteWebhook(@Caller() caller: SessionCaller, @RequestInput(WebhookNamePipe) name: string) {
    await this.webhooks.remove(caller.organizationId, actorOf(caller), name);
    return DELETED;
  }

  @Delete()
  @ApiOperation({ summary: 'Delete a webhook by body name (legacy); succeeds when it does not exist' })
  @ApiBody({ type: DeleteWebhookDto })
  @ApiOkResponse({ type: DeleteResultDto })
  @ApiErrorResponses({
    400: ['invalid name', 'bad request'],
    403: WRITE_FORBIDDEN,
    413: ['payload too large'],
    415: ['unsupported media type'],
  })
  async deleteWebhookByBody(@Caller() caller: SessionCaller, @RequestInput(DeleteWebhookByBodyPipe) name: string) {
    await this.webhooks.removeIfExists(caller.organizationId, actorOf(caller), name);
    return DELETED;
  }
}
