import { Global, Module } from '@nestjs/common';
import { PageCursors } from './page-cursors';
import { SecretBox } from './secret-box';

/** What SECRET_KEY keys, one of each for the process: sealed secrets (SecretBox) and the paged lists' cursors (PageCursors). */
@Global()
@Module({ providers: [SecretBox, PageCursors], exports: [SecretBox, PageCursors] })
export class CryptoModule {}
