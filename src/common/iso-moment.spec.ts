import { describe, expect, it } from 'vitest';
import { parseIsoMoment } from './iso-moment';

describe('parseIsoMoment', () => {
  it.each([
    ['UTC with milliseconds (toISOString)', '2026-01-15T09:30:00.123Z', '2026-01-15T09:30:00.123Z'],
    ['UTC without a fraction', '2026-01-15T09:30:00Z', '2026-01-15T09:30:00.000Z'],
    ['UTC without seconds', '2026-01-15T09:30Z', '2026-01-15T09:30:00.000Z'],
    ['a lower-case t and z', '2026-01-15t09:30:00z', '2026-01-15T09:30:00.000Z'],
    ['a positive offset', '2026-01-15T11:30:00+02:00', '2026-01-15T09:30:00.000Z'],
    ['a negative offset without a colon', '2026-01-15T04:00:00-0530', '2026-01-15T09:30:00.000Z'],
    ['a leap day', '2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    ['a one-digit fraction', '2026-01-15T09:30:00.5Z', '2026-01-15T09:30:00.500Z'],
    ['microseconds on a millisecond', '2026-01-15T09:30:00.123000Z', '2026-01-15T09:30:00.123Z'],
    ['a date alone, its midnight UTC', '2026-01-15', '2026-01-15T00:00:00.000Z'],
  ])('reads %s', (_, text, iso) => {
    expect(parseIsoMoment(text)?.toISOString()).toBe(iso);
  });

  it('rounds a fraction finer than milliseconds up, so that a bound keeps only the moments at or after it', () => {
    expect(parseIsoMoment('2026-01-15T09:30:00.123001Z')?.toISOString()).toBe('2026-01-15T09:30:00.124Z');
    expect(parseIsoMoment('2026-01-15T09:30:00.999999999Z')?.toISOString()).toBe('2026-01-15T09:30:01.000Z');
  });

  it.each([
    ['a local time (no offset)', '2026-01-15T09:30:00'],
    ['a date with a time zone alone', '2026-01-15Z'],
    ['a date with a T alone', '2026-01-15T'],
    ['a space for the T', '2026-01-15 09:30:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['February 30', '2026-02-30T00:00:00Z'],
    ['February 29 of a common year', '2026-02-29T00:00:00Z'],
    ['hour 24', '2026-01-15T24:00:00Z'],
    ['a leap second', '2026-12-31T23:59:60Z'],
    ['an offset of 24 hours', '2026-01-15T09:30:00+24:00'],
    ['year 0', '0000-01-01T00:00:00Z'],
    ['ten fraction digits', '2026-01-15T09:30:00.1234567890Z'],
    ['a number', '1768469400'],
    ['an empty string', ''],
    ['trailing text', '2026-01-15T09:30:00Z '],
  ])('refuses %s', (_, text) => {
    expect(parseIsoMoment(text)).toBeUndefined();
  });
});
