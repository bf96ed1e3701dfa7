import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';

const SRC = join(__dirname, '../../../src');

/** Every controller of the service: what `src/**\/*.controller.ts` export, so that a new one is found without being listed. */
export async function allControllers(): Promise<Type[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.controller.ts'))
    .sort();
  const modules: Record<string, unknown>[] = await Promise.all(files.map((file) => import(join(SRC, file))));
  return modules.flatMap((exports) =>
    Object.values(exports).filter((value): value is Type => typeof value === 'function' && Reflect.hasMetadata(PATH_METADATA, value)),
  );
}
