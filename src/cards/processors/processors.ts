import { lithic } from './lithic.processor';
import { marqeta } from './marqeta.processor';
import type { ProcessorAdapter } from './processor';

/** Every card processor an issuer may speak to, by its kind (docs/api.md 6.1): a new one is its adapter's file and a line here. */
export const PROCESSORS = { marqeta, lithic } as const satisfies Record<string, ProcessorAdapter>;

export type ProcessorKind = keyof typeof PROCESSORS;

/** An issuer's kinds: `stored` (the credentials of docs/api.md 6, the default), or a processor. */
export const ISSUER_KINDS = ['stored', ...(Object.keys(PROCESSORS) as ProcessorKind[])] as const;
export type IssuerKind = 'stored' | ProcessorKind;

export const isProcessorKind = (kind: string): kind is ProcessorKind => Object.hasOwn(PROCESSORS, kind);
