import { Injectable, PipeTransform } from '@nestjs/common';
import { parseRecoveryRequest, RecoveryRequest } from './recovery-window';

/** `POST {p}/webhook/{name}/recover`'s body (docs/api.md 10.14): 400 bad request unless `{"since", "until"?}`. */
@Injectable()
export class RecoverBodyPipe implements PipeTransform<unknown, RecoveryRequest> {
  transform(body: unknown): RecoveryRequest {
    return parseRecoveryRequest(body);
  }
}
