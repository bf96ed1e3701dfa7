import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { ErrorCode } from '../common/domain-error';

/**
 * Documents error answers in OpenAPI: per status, the `{code, message?}` body with the codes
 * that status can carry on this route.
 */
export const ApiErrorResponses = (responses: Partial<Record<number, ErrorCode[]>>) =>
  applyDecorators(
    ...Object.entries(responses).map(([status, codes]) =>
      ApiResponse({
        status: Number(status),
        description: codes!.map((code) => `\`${code}\``).join(', '),
        schema: {
          type: 'object',
          required: ['code'],
          additionalProperties: false,
          properties: {
            code: { type: 'string', enum: codes },
            message: { type: 'array', items: { type: 'string' } },
          },
        },
      }),
    ),
  );
