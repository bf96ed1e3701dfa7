import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';

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

/** A route as Nest registers it, without the API prefix: `GET /webhook/:name`. */
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly handler: string;
}

/** The routes of these controllers, from their decorators. */
export function routesOf(controllers: readonly Type[]): Route[] {
  return controllers.flatMap((controller) =>
    Object.getOwnPropertyNames(controller.prototype)
      .filter((handler) => Reflect.hasMetadata(METHOD_METADATA, controller.prototype[handler]))
      .map((handler) => {
        const method = controller.prototype[handler] as object;
        const path = [Reflect.getMetadata(PATH_METADATA, controller), Reflect.getMetadata(PATH_METADATA, method)]
          .filter((part: string) => part !== '/')
          .join('/');
        return { method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, method) as number], path: `/${path}`, handler };
      }),
  );
}
