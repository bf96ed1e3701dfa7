import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { DISABLED_EVENT, EVENT_FIELDS, TEST_EVENT } from '../event-types/event-types';
import { CATALOGUED_EVENT_TYPES, EVENT_CATALOGUE, eventBodySchema, exampleEventBody } from './event-catalogue';

const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));

describe('the event catalogue (docs/api.md 10.11)', () => {
  it('lists the platform types, then webhook.test and webhook.disabled', () => {
    expect(CATALOGUED_EVENT_TYPES).toEqual([...EVENT_FIELDS, TEST_EVENT, DISABLED_EVENT]);
  });

  it.each(CATALOGUED_EVENT_TYPES)('gives %s an example body that its schema validates', (type) => {
    const validate = ajv.compile(eventBodySchema(type));
    expect({ valid: validate(exampleEventBody(type)), errors: validate.errors }).toEqual({ valid: true, errors: null });
  });

  it.each(CATALOGUED_EVENT_TYPES)('refuses a %s body with another type, a timestamp that is not a date-time, or a member more', (type) => {
    const validate = ajv.compile(eventBodySchema(type));
    const example = exampleEventBody(type);
    expect(validate({ ...example, type: 'transaction.deleted' })).toBe(false);
    expect(validate({ ...example, timestamp: '15 January 2026' })).toBe(false);
    expect(validate({ ...example, id: 'evt_1' })).toBe(false);
  });

  it('names the webhook of webhook.test and webhook.disabled by the name pattern', () => {
    for (const type of [TEST_EVENT, DISABLED_EVENT] as const) {
      const validate = ajv.compile(EVENT_CATALOGUE[type].data);
      expect([
        validate({ webhook: 'payments' }),
        validate({ webhook: 'Payments' }),
        validate({}),
        validate({ webhook: 'a', more: 1 }),
      ]).toEqual([true, false, false, false]);
    }
  });

  it("takes any object as the data of the platform's own types", () => {
    for (const type of ['transaction.created', 'transaction.updated', 'transaction.completed', 'user.updated'] as const) {
      expect(ajv.validate(EVENT_CATALOGUE[type].data, { anything: [1, { deep: null }] })).toBe(true);
    }
  });

  it("takes card set-status's {card, status} as card.updated's data, and any object the platform sends, members of the same names too (docs/api.md 10.1, 10.8)", () => {
    const validate = ajv.compile(EVENT_CATALOGUE['card.updated'].data);
    expect([
      validate({ card: 7, status: 'frozen' }),
      validate({ reason: 'fraud', anything: [1] }),
      validate({ card: 'x' }),
      validate([]),
    ]).toEqual([true, true, true, false]);
  });
});
