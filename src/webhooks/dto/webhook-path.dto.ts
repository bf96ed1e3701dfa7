import { WebhookNameField } from './webhook-field.decorators';

/** The `{name}` of `{p}/webhook/{name}` and the paths below it (docs/api.md 5, 10.7, 10.14). */
export class WebhookPathDto {
  @WebhookNameField({ required: true }) name: string;
}
